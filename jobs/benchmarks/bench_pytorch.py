#!/usr/bin/python3
"""The PyTorch baseline for issue-3-style comparisons: the same encoder stack on the same CPU.

Usage: /usr/bin/python3 jobs/benchmarks/bench_pytorch.py [--rows 256] [--length 128] [--layers 12]
         [--width 768] [--heads 12] [--ffn 3072] [--threads 2]
Needs Debian's python3-torch. Random weights and inputs, no I/O; prints the forward time and the
whole process time (import and set-up included) on its last line.
"""
import argparse, time
START = time.time()
import torch

p = argparse.ArgumentParser()
for name, default in [("rows", 256), ("length", 128), ("layers", 12), ("width", 768), ("heads", 12),
                      ("ffn", 3072), ("threads", 2), ("batch", 32)]:
    p.add_argument("--" + name, type=int, default=default)
a = p.parse_args()
torch.set_num_threads(a.threads)
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(a.width, a.heads, a.ffn, dropout=0.0, activation="gelu",
                                         batch_first=True)
model = torch.nn.TransformerEncoder(layer, a.layers, enable_nested_tensor=False).eval()
x = torch.randn(a.rows, a.length, a.width)
t0 = time.time()
with torch.inference_mode():
    for i in range(0, a.rows, a.batch):
        model(x[i:i + a.batch])
forward = time.time() - t0
tokens = a.rows * a.length
flops = tokens * a.layers * (8 * a.width ** 2 + 4 * a.width * a.ffn + 4 * a.length * a.width)
print(f"pytorch {torch.__version__}: {a.rows} x {a.length} tokens, {a.layers} layers, "
      f"{a.threads} threads: forward {forward:.1f} s ({tokens / forward:,.0f} tokens/s, "
      f"{flops / forward / 1e9:.1f} GFLOP/s)")
print(f"RESULT pytorch_forward_s={forward:.2f} pytorch_process_s={time.time() - START:.2f}")
