"""What the ONNX exports of the benchmarks' peers share (jobs/benchmarks/peers/onnx_export_*.py):
reading a Hugging Face folder's safetensors as float32 torch tensors (BF16 widened), and writing a
module as ONNX with input_ids and attention_mask (batch, length) in, batch and length left free.
"""
import json
import os
import struct
import tempfile

import numpy as np
import onnx
import torch


def tensors(path, strip=""):
    """The tensors of one safetensors file by name (a leading `strip` taken off), float32."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        s, e = info["data_offsets"]
        if info["dtype"] == "BF16":
            bits = np.frombuffer(data[s:e], dtype=np.uint16).astype(np.uint32) << 16
            values = bits.view(np.float32)
        else:
            values = np.frombuffer(data[s:e], dtype=np.float32)
        name = name[len(strip):] if strip and name.startswith(strip) else name
        out[name] = torch.from_numpy(values.reshape(info["shape"]).copy())
    return out


def folder_tensors(folder, strip=""):
    """Every tensor of a folder's model.safetensors, or of the shards its index names."""
    index = os.path.join(folder, "model.safetensors.index.json")
    files = (sorted(set(json.load(open(index))["weight_map"].values()))
             if os.path.exists(index) else ["model.safetensors"])
    weights = {}
    for file in files:
        weights.update(tensors(os.path.join(folder, file), strip))
    return weights


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
