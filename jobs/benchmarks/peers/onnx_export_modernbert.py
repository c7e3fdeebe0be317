#!/usr/bin/python3
"""Writes a ModernBERT folder (jobs/samples/make_long_model.py) as an ONNX file for the ONNX Runtime
peer of jobs/benchmarks/bench-long: input_ids and attention_mask (batch, length), both int64, in;
the last hidden state after the final norm (batch, length, E) out, as modeling_modernbert.py's
eager path computes it (the arithmetic of jobs/samples/make_modernbert_cases.py's port: every
layer scores all T x T pairs, a local layer masks the keys beyond half its window, rotary bases
per layer kind, gated GELU feed-forward). The BF16 weights are widened to float32 and each linear
weight stored transposed, (in, out), so that every projection is a MatMul on an initializer, which
jobs/benchmarks/peers/onnx_quantize.py turns into ONNX Runtime's dynamic int8.

Usage: /usr/bin/python3 jobs/benchmarks/peers/onnx_export_modernbert.py MODEL_DIR OUT.onnx
Needs Debian's python3-torch (its exporter needs no onnx package) and python3-onnx.
"""
import json
import os
import sys

import numpy as np
import torch

from onnx_peer import export, folder_tensors, parameters

model_dir, out = sys.argv[1], sys.argv[2]
cfg = json.load(open(os.path.join(model_dir, "config.json")))
E, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
D = E // H
eps, window, every = cfg["norm_eps"], cfg["local_attention"], cfg["global_attn_every_n_layers"]
thetas = {True: cfg["global_rope_theta"], False: cfg["local_rope_theta"]}
activation = {"gelu": lambda x: torch.nn.functional.gelu(x),
              "gelu_pytorch_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}[
    cfg["hidden_activation"]]


class ModernBert(torch.nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.w = parameters(weights, lambda name: name.startswith("embeddings.tok_embeddings"))

    def has(self, name):
        return name.replace(".", "__") in self.w

    def p(self, name):
        return self.w[name.replace(".", "__")]

    def ln(self, x, prefix):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        y = (x - mean) / torch.sqrt(var + eps) * self.p(prefix + "weight")
        return y + self.p(prefix + "bias") if self.has(prefix + "bias") else y

    def lin(self, x, name):
        y = x @ self.p(name + ".weight")
        return y + self.p(name + ".bias") if self.has(name + ".bias") else y

    def forward(self, input_ids, attention_mask):
        B, T = input_ids.shape
        most_negative = torch.finfo(torch.float32).min
        positions = torch.arange(T, dtype=torch.float32)
        far = (positions[:, None] - positions[None, :]).abs() > window // 2
        padding = (1.0 - attention_mask.float())[:, None, None, :] * most_negative
        x = self.ln(torch.nn.functional.embedding(input_ids, self.p(
            "embeddings.tok_embeddings.weight")), "embeddings.norm.")
        for i in range(L):
            is_global = i % every == 0
            p_ = f"layers.{i}."
            h = x if i == 0 else self.ln(x, p_ + "attn_norm.")
            qkv = self.lin(h, p_ + "attn.Wqkv").view(B, T, 3, H, D)
            q, k, v = (qkv[:, :, j].transpose(1, 2) for j in range(3))   # (B, H, T, D)
            inv = 1.0 / thetas[is_global] ** (torch.arange(0, D, 2, dtype=torch.float32) / D)
            freqs = positions[:, None] * inv[None, :]
            emb = torch.cat((freqs, freqs), dim=-1)
            cos, sin = emb.cos(), emb.sin()
            q = q * cos + torch.cat((-q[..., D // 2:], q[..., :D // 2]), dim=-1) * sin
            k = k * cos + torch.cat((-k[..., D // 2:], k[..., :D // 2]), dim=-1) * sin
            s = q @ k.transpose(-1, -2) / np.sqrt(D)
            if not is_global:
                s = s.masked_fill(far, most_negative)
            s = s + padding
            ctx = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, E)
            x = x + self.lin(ctx, p_ + "attn.Wo")
            inp, gate = self.lin(self.ln(x, p_ + "mlp_norm."), p_ + "mlp.Wi").chunk(2, dim=-1)
            x = x + self.lin(activation(inp) * gate, p_ + "mlp.Wo")
        return self.ln(x, "final_norm.")


export(ModernBert(folder_tensors(model_dir)).eval(), out, "hidden", length=300)
print(f"wrote {out}: {L} layers, E = {E}, {H} heads, window {window}, global every {every} layers")
