#!/usr/bin/python3
"""PyTorch float32 baseline for jobs/benchmarks/bench-qwen3: a Qwen3 folder computed as
modeling_qwen3.py does (RMS pre-norm, q/k norms, rotary, grouped-query causal attention, SwiGLU)
and batched as sentence-transformers batches (texts sorted by length, batches of 32, padded with a
mask), from token ids (so no tokenization is timed), the last real token pooled and normalized.

Usage: /usr/bin/python3 jobs/benchmarks/bench_qwen3_pytorch.py --model DIR --ids FILE
         [--threads 2] [--batch 32]
FILE: a JSON list of {"input_ids": [...]} (jobs/samples/tokenize_ids.js). Last line: RESULT ...
"""
import argparse, json, os, struct, time
START = time.time()
import numpy as np
import torch

p = argparse.ArgumentParser()
p.add_argument("--model", required=True)
p.add_argument("--ids", required=True)
p.add_argument("--threads", type=int, default=2)
p.add_argument("--batch", type=int, default=32)
a = p.parse_args()
torch.set_num_threads(a.threads)
cfg = json.load(open(os.path.join(a.model, "config.json")))
E, H, K, D, F, L = (cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"],
                    cfg["head_dim"], cfg["intermediate_size"], cfg["num_hidden_layers"])
eps, theta = cfg["rms_norm_eps"], cfg["rope_theta"]
with open(os.path.join(a.model, "model.safetensors"), "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
    data = f.read()
w = {}
for name, info in header.items():
    if name != "__metadata__":
        s, e = info["data_offsets"]
        bits = np.frombuffer(data[s:e], dtype=np.uint16).astype(np.uint32) << 16
        w[name] = torch.from_numpy(bits.view(np.float32).reshape(info["shape"]).copy())
del data


def rms(x, weight):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    return torch.cat((-x[..., D // 2:], x[..., : D // 2]), dim=-1)


def attention(q, k, v, bias):
    """softmax(q·kᵀ/√D + bias)·v, a few rows of the batch at a time when their (H, T, T) scores
    would pass 512 MB, as PyTorch 2's memory-efficient attention spares sentence-transformers
    (a batch padded to a 2,387-token text would hold 12 GB of scores at once)."""
    B, _, T, _ = q.shape
    rows = max(1, (512 << 20) // (H * T * T * 4))
    return torch.cat([torch.softmax(q[b:b + rows] @ k[b:b + rows].transpose(-1, -2) * D ** -0.5
                                    + bias[b:b + rows], dim=-1) @ v[b:b + rows]
                      for b in range(0, B, rows)])


def forward(ids, mask):
    B, T = ids.shape
    x = w["embed_tokens.weight"][ids]
    inv = 1.0 / (theta ** (torch.arange(0, D, 2, dtype=torch.float32) / D))
    emb = torch.cat([torch.outer(torch.arange(T, dtype=torch.float32), inv)] * 2, -1)
    cos, sin = emb.cos()[None, None], emb.sin()[None, None]
    allowed = torch.tril(torch.ones(T, T, dtype=torch.bool))[None, None] & mask[:, None, None, :]
    bias = torch.zeros(B, 1, T, T).masked_fill(~allowed, float("-inf"))
    for i in range(L):
        p_ = f"layers.{i}."
        a_ = p_ + "self_attn."
        h = rms(x, w[p_ + "input_layernorm.weight"])
        q = rms((h @ w[a_ + "q_proj.weight"].T).view(B, T, H, D), w[a_ + "q_norm.weight"]).transpose(1, 2)
        k = rms((h @ w[a_ + "k_proj.weight"].T).view(B, T, K, D), w[a_ + "k_norm.weight"]).transpose(1, 2)
        v = (h @ w[a_ + "v_proj.weight"].T).view(B, T, K, D).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // K, dim=1), v.repeat_interleave(H // K, dim=1)
        o = attention(q, k, v, bias)
        x = x + o.transpose(1, 2).reshape(B, T, H * D) @ w[a_ + "o_proj.weight"].T
        h = rms(x, w[p_ + "post_attention_layernorm.weight"])
        x = x + (torch.nn.functional.silu(h @ w[p_ + "mlp.gate_proj.weight"].T)
                 * (h @ w[p_ + "mlp.up_proj.weight"].T)) @ w[p_ + "mlp.down_proj.weight"].T
    return rms(x, w["norm.weight"])


rows = [r["input_ids"] for r in json.load(open(a.ids))]
order = sorted(range(len(rows)), key=lambda r: -len(rows[r]))
loaded = time.time()
tokens = 0
with torch.inference_mode():
    for s in range(0, len(order), a.batch):
        batch = [rows[r] for r in order[s:s + a.batch]]
        T = max(len(r) for r in batch)
        ids = torch.zeros(len(batch), T, dtype=torch.long)
        mask = torch.zeros(len(batch), T, dtype=torch.bool)
        for b, r in enumerate(batch):
            ids[b, :len(r)] = torch.tensor(r)
            mask[b, :len(r)] = True
            tokens += len(r)
        h = forward(ids, mask)
        last = h[torch.arange(len(batch)), mask.sum(1) - 1]
        torch.nn.functional.normalize(last, dim=-1)
done = time.time()
print(f"RESULT seconds={done - START:.1f} encode_seconds={done - loaded:.1f} texts={len(rows)} "
      f"tokens={tokens} tokens_per_s={tokens / (done - loaded):.0f}")
