#!/usr/bin/python3
"""Writes a Qwen3 embedding folder (jobs/benchmarks/make_qwen3_bench_model.py) as an ONNX file for
the ONNX Runtime peer of jobs/benchmarks/bench-qwen3: input_ids and attention_mask (batch, length),
both int64, in; the last hidden state after the final norm (batch, length, E) out, as
modeling_qwen3.py computes it (RMS pre-norm, q/k norms, rotary, grouped-query causal attention,
SwiGLU; the arithmetic of jobs/benchmarks/bench_qwen3_pytorch.py); a Llama folder of the same
benchmark (--family llama) as modeling_llama.py does: no q/k norms, llama3-scaled rotary
frequencies where rope_scaling says, and bidirectional (key padding only) for NVIDIA's
llama_bidirec. The BF16 weights are widened to
float32; each linear weight is stored transposed, (in, out), so that every projection is a MatMul
on an initializer, which jobs/benchmarks/peers/onnx_quantize.py turns into ONNX Runtime's dynamic
int8. Weights go to an external data file beside OUT (a 0.6B model passes protobuf's 2 GB).

Usage: /usr/bin/python3 jobs/benchmarks/peers/onnx_export_qwen3.py MODEL_DIR OUT.onnx
Needs Debian's python3-torch (its exporter needs no onnx package) and python3-onnx.
"""
import json
import os
import sys

import torch

from onnx_peer import export, folder_tensors, parameters

model_dir, out = sys.argv[1], sys.argv[2]
cfg = json.load(open(os.path.join(model_dir, "config.json")))
E, H, K, D, F, L = (cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"],
                    cfg["head_dim"], cfg["intermediate_size"], cfg["num_hidden_layers"])
eps, theta = cfg["rms_norm_eps"], cfg["rope_theta"]
scaling = cfg.get("rope_scaling") or {}
bidirectional = cfg["model_type"] == "llama_bidirec" or cfg.get("use_bidirectional_attention")


def frequencies():
    """θ^(−2i/D), llama3-scaled (transformers' _compute_llama3_parameters) where asked."""
    inv = 1.0 / (theta ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    if scaling.get("rope_type") == "llama3":
        old = scaling["original_max_position_embeddings"]
        low, high, factor = scaling["low_freq_factor"], scaling["high_freq_factor"], scaling["factor"]
        wavelen = 2 * torch.pi / inv
        scaled = torch.where(wavelen > old / low, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        blended = (1 - smooth) * scaled / factor + smooth * scaled
        inv = torch.where((wavelen >= old / high) & (wavelen <= old / low), blended, scaled)
    return inv.float()


class Qwen3(torch.nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.w = parameters(weights, lambda name: name.startswith("embed_tokens"))

    def p(self, name):
        return self.w[name.replace(".", "__")]

    def rms(self, x, name):
        return self.p(name) * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))

    def forward(self, input_ids, attention_mask):
        B, T = input_ids.shape
        x = torch.nn.functional.embedding(input_ids, self.p("embed_tokens.weight"))
        inv = frequencies()
        positions = torch.arange(T, dtype=torch.float32)
        emb = torch.cat([positions[:, None] * inv[None, :]] * 2, -1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        causal = torch.ones(T, T).bool() if bidirectional else torch.ones(T, T).tril().bool()
        allowed = causal[None, None] & attention_mask.bool()[:, None, None, :]
        bias = torch.zeros(allowed.shape).masked_fill(~allowed, float("-inf"))
        for i in range(L):
            p_ = f"layers.{i}."
            a_ = p_ + "self_attn."
            h = self.rms(x, p_ + "input_layernorm.weight")
            q = (h @ self.p(a_ + "q_proj.weight")).view(B, T, H, D)
            k = (h @ self.p(a_ + "k_proj.weight")).view(B, T, K, D)
            if (a_ + "q_norm.weight").replace(".", "__") in self.w:
                q, k = self.rms(q, a_ + "q_norm.weight"), self.rms(k, a_ + "k_norm.weight")
            q, k = q.transpose(1, 2), k.transpose(1, 2)
            v = (h @ self.p(a_ + "v_proj.weight")).view(B, T, K, D).transpose(1, 2)
            q = q * cos + torch.cat((-q[..., D // 2:], q[..., : D // 2]), dim=-1) * sin
            k = k * cos + torch.cat((-k[..., D // 2:], k[..., : D // 2]), dim=-1) * sin
            # each KV head read by H / K query heads (repeat_interleave exports wrongly here)
            k = k[:, :, None].expand(B, K, H // K, T, D).reshape(B, H, T, D)
            v = v[:, :, None].expand(B, K, H // K, T, D).reshape(B, H, T, D)
            scores = q @ k.transpose(-1, -2) * D ** -0.5 + bias
            o = torch.softmax(scores, dim=-1) @ v
            x = x + o.transpose(1, 2).reshape(B, T, H * D) @ self.p(a_ + "o_proj.weight")
            h = self.rms(x, p_ + "post_attention_layernorm.weight")
            x = x + (torch.nn.functional.silu(h @ self.p(p_ + "mlp.gate_proj.weight"))
                     * (h @ self.p(p_ + "mlp.up_proj.weight"))) @ self.p(p_ + "mlp.down_proj.weight")
        return self.rms(x, "norm.weight")


export(Qwen3(folder_tensors(model_dir)).eval(), out, "hidden", external_data=True)
print(f"wrote {out}: {L} layers, E = {E}, {H} heads ({K} KV) of {D}, F = {F}")
