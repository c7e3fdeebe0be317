"""What the ONNX exports of the benchmarks' peers share (jobs/benchmarks/peers/onnx_export_*.py):
a folder's weights (jobs/benchmarks/safetensors_torch.py) as parameters in the form the int8
quantizer reads, and writing a module as ONNX with input_ids and attention_mask (batch, length)
in, batch and length left free.
"""
import os
import sys
import tempfile

import onnx
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from safetensors_torch import read_folder as folder_tensors  # noqa: E402,F401


def parameters(weights, keep_as_stored):
    """The weights as a ParameterDict (dots made __), each 2-D one but those `keep_as_stored`
    names transposed to (in, out), so that every projection is a MatMul on an initializer, the
    form jobs/benchmarks/peers/onnx_quantize.py quantizes."""
    out = torch.nn.ParameterDict()
    for name, value in weights.items():
        if value.dim() == 2 and not keep_as_stored(name):
            value = value.t().contiguous()
        out[name.replace(".", "__")] = torch.nn.Parameter(value, requires_grad=False)
    return out


def export(model, out, output, pooled=False, length=16, external_data=False):
    """Writes `model` (forward(input_ids, attention_mask)) to `out`, its output named `output`,
    (batch, length, ...) or, `pooled`, (batch, ...); traced on two texts of `length` tokens, the
    second padded. `external_data`: the weights in OUT.data beside it (past protobuf's 2 GB)."""
    ids = torch.randint(0, 1000, (2, length))
    mask = torch.ones(2, length, dtype=torch.long)
    mask[1, length * 3 // 4:] = 0
    axes = {"input_ids": {0: "batch", 1: "length"}, "attention_mask": {0: "batch", 1: "length"},
            output: {0: "batch"} if pooled else {0: "batch", 1: "length"}}
    tmp = tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(out)))   # the exporter's own files
    with torch.no_grad():
        torch.onnx.export(model, (ids, mask), os.path.join(tmp, "model.onnx"),
                          input_names=["input_ids", "attention_mask"], output_names=[output],
                          dynamic_axes=axes, opset_version=14)
    graph = onnx.load(os.path.join(tmp, "model.onnx"))
    if external_data:
        onnx.save_model(graph, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(out) + ".data", size_threshold=1024)
    else:
        onnx.save_model(graph, out)
    for name in os.listdir(tmp):
        os.remove(os.path.join(tmp, name))
    os.rmdir(tmp)
