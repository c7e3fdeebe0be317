#!/usr/bin/python3
"""Golden MPNet folders: random checkpoints saved as Hugging Face saves MPNet, with a WordPiece
tokenizer.json of all-mpnet-base-v2's form (`<s> <pad> </s> <unk>` at ids 0 to 3, BERT's uncased
pieces after them, `<mask>` last; BertNormalizer, BertPreTokenizer, RobertaProcessing
`<s> A </s>`), cut from BERT's vocabulary (jobs/samples/family_cases.py):

  - mpnet-embedding: MPNetModel, whole, F32, its pooler kept (as all-mpnet-base-v2's file), the
    config.json of all-mpnet-base-v2 (architectures MPNetForMaskedLM, 32 buckets, 514
    positions, eps 1e-5), sentence-transformers: mean pooling, Normalize;
  - mpnet-mlm: MPNetForMaskedLM, `mpnet.` prefix with lm_head.*, BF16, 16 buckets, eps 1e-12
    (MPNetConfig's default, left out of config.json), no sentence-transformers files.

Texts run to 128 tokens, so the relative distances reach the log-spaced buckets and, with 32
buckets, the last one (91 and more).

The reference outputs come from a float64 port of modeling_mpnet.py (transformers 4.x):
positions from padding_idx + 1, LayerNorm(word + position); per layer q, k, v; scores
q·kᵀ/√D + relative_attention_bias[bucket(key − query)] (relative_position_bucket copied as
written, its log in float32); softmax; attn.o; LayerNorm(o + x); GELU feed-forward; LayerNorm.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_mpnet_cases.py src/test/resources/mpnet-cases
"""
import json, math, os, shutil, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (gelu, layer_norm, store, wordpiece_tokenizer,  # noqa: E402
                          wordpiece_vocabulary, write_texts)
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402

MAX_TOKENS = 128
POSITIONS = 514


def relative_position_bucket(relative_position, num_buckets=32, max_distance=128):
    """modeling_mpnet.py's, as written."""
    ret = 0
    n = -relative_position
    num_buckets //= 2
    ret += (n < 0).to(torch.long) * num_buckets
    n = torch.abs(n)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    val_if_large = max_exact + (
        torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)).to(torch.long)
    val_if_large = torch.min(val_if_large, torch.full_like(val_if_large, num_buckets - 1))
    ret += torch.where(is_small, n, val_if_large)
    return ret


def random_mpnet(c, rng):
    E, F, V = c["E"], c["F"], c["V"]
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embeddings.word_embeddings.weight": normal(V, E, std=0.5),
         "embeddings.position_embeddings.weight": normal(POSITIONS, E, std=0.3),
         "embeddings.LayerNorm.weight": 1 + normal(E, std=0.1),
         "embeddings.LayerNorm.bias": normal(E, std=0.1),
         "encoder.relative_attention_bias.weight": normal(c["buckets"], c["H"], std=1.5)}
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        for n in "qkv":
            t[p + f"attention.attn.{n}.weight"] = normal(E, E, std=1.8 / np.sqrt(E))
            t[p + f"attention.attn.{n}.bias"] = normal(E, std=0.1)
        t[p + "attention.attn.o.weight"] = normal(E, E, std=1 / np.sqrt(E))
        t[p + "attention.attn.o.bias"] = normal(E, std=0.1)
        t[p + "attention.LayerNorm.weight"] = 1 + normal(E, std=0.1)
        t[p + "attention.LayerNorm.bias"] = normal(E, std=0.1)
        t[p + "intermediate.dense.weight"] = normal(F, E, std=1 / np.sqrt(E))
        t[p + "intermediate.dense.bias"] = normal(F, std=0.1)
        t[p + "output.dense.weight"] = normal(E, F, std=1 / np.sqrt(F))
        t[p + "output.dense.bias"] = normal(E, std=0.1)
        t[p + "output.LayerNorm.weight"] = 1 + normal(E, std=0.1)
        t[p + "output.LayerNorm.bias"] = normal(E, std=0.1)
    return t


def mpnet(c, w, ids):
    """Last hidden states (T, E) of one unpadded sequence, float64."""
    T, H, E, eps = len(ids), c["H"], c["E"], c["eps"]
    D = E // H
    ids = torch.tensor(ids)
    positions = torch.arange(T) + 2                     # padding_idx 1 + 1
    x = layer_norm(w["embeddings.word_embeddings.weight"][ids]
                   + w["embeddings.position_embeddings.weight"][positions],
                   w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    context = torch.arange(T)[:, None]
    memory = torch.arange(T)[None, :]
    bucket = relative_position_bucket(memory - context, num_buckets=c["buckets"])
    bias = w["encoder.relative_attention_bias.weight"][bucket].permute(2, 0, 1)   # (H, T, T)
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        lin = lambda v, n: v @ w[p + n + ".weight"].T + w[p + n + ".bias"]
        q, k, v = (lin(x, f"attention.attn.{n}").view(T, H, D).transpose(0, 1) for n in "qkv")
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(D) + bias, dim=-1)
        o = lin((a @ v).transpose(0, 1).reshape(T, E), "attention.attn.o")
        x = layer_norm(o + x, w[p + "attention.LayerNorm.weight"],
                       w[p + "attention.LayerNorm.bias"], eps)
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(lin(h, "output.dense") + x, w[p + "output.LayerNorm.weight"],
                       w[p + "output.LayerNorm.bias"], eps)
    return x


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    vocab = wordpiece_vocabulary(["<s>", "<pad>", "</s>", "<unk>"], ["<mask>"])
    tokenizer = os.path.join(folder, "tokenizer.json")
    json.dump(wordpiece_tokenizer(vocab, ["<s>", "<pad>", "</s>", "<unk>", "[UNK]", "<mask>"],
                                  {"type": "RobertaProcessing", "sep": ["</s>", 2],
                                   "cls": ["<s>", 0], "trim_offsets": True,
                                   "add_prefix_space": False}),
              open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(c, V=len(vocab))
    values = random_mpnet(c, rng)
    if c["mlm"]:
        tensors, w = store(values, c["dtype"], "mpnet.")
        E, V = c["E"], c["V"]
        head = {"lm_head.dense.weight": rng.normal(0, 0.1, (E, E)),
                "lm_head.dense.bias": rng.normal(0, 0.1, (E,)),
                "lm_head.layer_norm.weight": np.ones(E), "lm_head.layer_norm.bias": np.zeros(E),
                "lm_head.decoder.weight": values["embeddings.word_embeddings.weight"],
                "lm_head.bias": np.zeros(V), "lm_head.decoder.bias": np.zeros(V)}
        tensors.update(store(head, c["dtype"])[0])
    else:
        values["pooler.dense.weight"] = rng.normal(0, 0.1, (c["E"], c["E"]))
        values["pooler.dense.bias"] = rng.normal(0, 0.1, (c["E"],))
        tensors, w = store(values, c["dtype"])
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"architectures": ["MPNetForMaskedLM"], "attention_probs_dropout_prob": 0.1,
              "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu",
              "hidden_dropout_prob": 0.1, "hidden_size": c["E"], "initializer_range": 0.02,
              "intermediate_size": c["F"], "max_position_embeddings": POSITIONS,
              "model_type": "mpnet", "num_attention_heads": c["H"],
              "num_hidden_layers": c["L"], "pad_token_id": 1,
              "relative_attention_num_buckets": c["buckets"], "torch_dtype": "float32",
              "transformers_version": "4.8.2", "vocab_size": c["V"]}
    if c["eps"] != 1e-12:
        config["layer_norm_eps"] = c["eps"]
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    if not c["mlm"]:
        write_sentence_transformers(folder, c["E"], 384)
    rows = write_texts(folder, tokenizer, MAX_TOKENS, lambda ids, types: mpnet(c, w, ids))
    longest = max(len(r["input_ids"]) for r in rows)
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} {c['buckets']} buckets {c['dtype']}, "
          f"vocabulary {c['V']}, {len(rows)} texts, longest {longest} tokens")


CASES = [
    dict(name="mpnet-embedding", L=2, E=32, H=4, F=64, buckets=32, eps=1e-5, dtype="F32",
         mlm=False),
    dict(name="mpnet-mlm", L=3, E=24, H=2, F=40, buckets=16, eps=1e-12, dtype="BF16", mlm=True),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261125 + n)
