#!/usr/bin/python3
"""PyTorch baseline for text-to-sentence-vector benchmarks: a Hugging Face BERT folder computed as
sentence-transformers batches it (texts sorted by length, batches of 32, padding mask), from token
ids, so its time holds no tokenization. BERT's layer is nn.TransformerEncoderLayer, post-LN, exact
GELU; then mean pooling over the real tokens and L2 normalization.

Usage: /usr/bin/python3 jobs/benchmarks/bench_text_pytorch.py --ids DIR/ids.jsonl
         [--model ../shared/models/all-MiniLM-L6-v2] [--threads 2] [--batch 32] [--check FILE]
ids.jsonl comes from jobs/make-text-corpus. --check FILE (check.jsonl, also from it) computes the
reference texts first and prints the worst cosine to sentence-transformers' vectors. Needs Debian's
python3-torch. Last line: RESULT key=value ...
"""
import argparse, json, os, struct, time
START = time.time()
import numpy as np
import torch

p = argparse.ArgumentParser()
p.add_argument("--ids", required=True)
p.add_argument("--model", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared",
                                               "models", "all-MiniLM-L6-v2"))
p.add_argument("--threads", type=int, default=2)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--check")
a = p.parse_args()
torch.set_num_threads(a.threads)


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    types = {"F32": np.float32, "F16": np.float16}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in types:
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[start:end], dtype=types[info["dtype"]]).reshape(info["shape"])
        tensors[name.removeprefix("bert.")] = torch.from_numpy(array.astype(np.float32))
    return tensors


cfg = json.load(open(os.path.join(a.model, "config.json")))
E, H, F, L = (cfg["hidden_size"], cfg["num_attention_heads"], cfg["intermediate_size"],
              cfg["num_hidden_layers"])
eps = cfg.get("layer_norm_eps", 1e-12)
w = load_safetensors(os.path.join(a.model, "model.safetensors"))
emb_norm = torch.nn.LayerNorm(E, eps=eps)
emb_norm.weight.data, emb_norm.bias.data = w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"]
layers = []
for i in range(L):
    q = f"encoder.layer.{i}."
    layer = torch.nn.TransformerEncoderLayer(E, H, F, dropout=0.0, activation="gelu",
                                             layer_norm_eps=eps, batch_first=True)
    s = q + "attention.self."
    layer.self_attn.in_proj_weight.data = torch.cat([w[s + "query.weight"], w[s + "key.weight"],
                                                     w[s + "value.weight"]])
    layer.self_attn.in_proj_bias.data = torch.cat([w[s + "query.bias"], w[s + "key.bias"],
                                                   w[s + "value.bias"]])
    for module, name in [(layer.self_attn.out_proj, "attention.output.dense"),
                         (layer.linear1, "intermediate.dense"), (layer.linear2, "output.dense"),
                         (layer.norm1, "attention.output.LayerNorm"),
                         (layer.norm2, "output.LayerNorm")]:
        module.weight.data, module.bias.data = w[q + name + ".weight"], w[q + name + ".bias"]
    layers.append(layer.eval())
word, position, token_type = (w["embeddings.word_embeddings.weight"],
                              w["embeddings.position_embeddings.weight"],
                              w["embeddings.token_type_embeddings.weight"])


def encode(sequences):
    """Sentence vectors of the id lists, in their order (sorted by length inside, as s-t does)."""
    order = np.argsort([-len(s) for s in sequences], kind="stable")
    out = [None] * len(sequences)
    with torch.inference_mode():
        for start in range(0, len(order), a.batch):
            chunk = [sequences[k] for k in order[start:start + a.batch]]
            T = max(len(s) for s in chunk)
            ids = torch.zeros(len(chunk), T, dtype=torch.long)
            mask = torch.zeros(len(chunk), T, dtype=torch.bool)
            for b, s in enumerate(chunk):
                ids[b, :len(s)] = torch.tensor(s)
                mask[b, :len(s)] = True
            x = emb_norm(word[ids] + position[:T] + token_type[0])
            for layer in layers:
                x = layer(x, src_key_padding_mask=~mask)
            m = mask.unsqueeze(-1).float()
            pooled = (x * m).sum(1) / m.sum(1)
            pooled = torch.nn.functional.normalize(pooled, dim=1)
            for b, k in enumerate(order[start:start + a.batch]):
                out[k] = pooled[b]
    return out


if a.check:
    rows = [json.loads(line) for line in open(a.check)]
    vectors = encode([r["ids"] for r in rows])
    worst = min(float(torch.dot(v, torch.tensor(r["sentence_embedding"]))
                      / torch.tensor(r["sentence_embedding"]).norm()) for v, r in zip(vectors, rows))
    print(f"check: {len(rows)} reference texts, worst cosine to the reference 1 - {1 - worst:.2e}")

sequences = [json.loads(line)["ids"] for line in open(a.ids)]
tokens = sum(len(s) for s in sequences)
t0 = time.time()
encode(sequences)
forward = time.time() - t0
print(f"pytorch {torch.__version__}: {len(sequences):,} texts, {tokens:,} tokens, {L} layers, "
      f"batches of {a.batch}, {a.threads} threads: {forward:.1f} s ({tokens / forward:,.0f} tokens/s)")
print(f"RESULT pytorch_forward_s={forward:.2f} pytorch_process_s={time.time() - START:.2f} "
      f"tokens={tokens}")
