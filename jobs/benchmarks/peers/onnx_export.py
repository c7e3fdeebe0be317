#!/usr/bin/python3
"""Writes the PyTorch baseline's encoder stack (jobs/benchmarks/bench_pytorch.py: nn.TransformerEncoder of
post-norm GELU layers, random weights) as an ONNX file, batch and length left free, for the ONNX
Runtime peer of jobs/bench-bert-base.

Usage: /usr/bin/python3 jobs/bench_onnx_export.py OUT.onnx [--layers 12] [--width 768]
         [--heads 12] [--ffn 3072]
Needs Debian's python3-torch (its exporter needs no onnx package).
"""
import argparse
import torch

p = argparse.ArgumentParser()
p.add_argument("out")
for name, default in [("layers", 12), ("width", 768), ("heads", 12), ("ffn", 3072)]:
    p.add_argument("--" + name, type=int, default=default)
a = p.parse_args()
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(a.width, a.heads, a.ffn, dropout=0.0, activation="gelu",
                                         batch_first=True)
model = torch.nn.TransformerEncoder(layer, a.layers, enable_nested_tensor=False).eval()
# The clones start equal, which the exporter would store once: give each layer its own weights.
with torch.no_grad():
    for param in model.parameters():
        if param.dim() > 1:
            param.normal_(0.0, param.shape[1] ** -0.5)
x = torch.randn(2, 16, a.width)
# Traced with gradients on: in inference mode PyTorch takes its fused fast path
# (aten::_transformer_encoder_layer_fwd), which the exporter cannot write.
torch.onnx.export(model, (x,), a.out, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch", 1: "length"}, "y": {0: "batch", 1: "length"}},
                  opset_version=14)
print(f"wrote {a.out}: {a.layers} layers, E={a.width}, H={a.heads}, F={a.ffn}")
