#!/usr/bin/python3
"""Golden GTE folders (model_type new): random checkpoints saved as Alibaba-NLP's gte-*-v1.5 and
gte-multilingual are, with a WordPiece tokenizer.json of bert-base-uncased's form, cut from BERT's
vocabulary (jobs/samples/family_cases.py):

  - gte-embedding: NewModel, whole, F32, gte-base-en-v1.5's config.json (auto_map naming
    Alibaba-NLP/new-impl, rope_theta 500000, rope_scaling ntk ×2, type_vocab_size 0) and its
    sentence-transformers files (CLS pooling);
  - gte-mlm: NewForMaskedLM, `new.` prefix with lm_head.*, BF16, gte-multilingual-base's rotary
    (rope_theta 160000, ntk ×8) and one token type; no sentence-transformers files.

The reference outputs come from a float64 port of new-impl's modeling.py: word (+ token-type)
embeddings, LayerNorm; per layer qkv_proj split in three, rotary on q and k (rotate_half, the
frequencies of NTKScalingRotaryEmbedding: base θ·f, each divided by f^(2/D)), softmax of
q·kᵀ/√D, o_proj, attn_ln(x + attn), up_gate_proj split into up and gate,
down_proj(gelu(gate) · up), mlp_ln(x + mlp).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_gte_cases.py src/test/resources/gte-cases
"""
import json, math, os, shutil, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (bert_uncased_tokenizer, gelu, layer_norm, store,  # noqa: E402
                          write_texts)
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402

MAX_TOKENS = 64


def random_gte(c, rng):
    E, F, V = c["E"], c["F"], c["V"]
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embeddings.word_embeddings.weight": normal(V, E, std=0.5),
         "embeddings.LayerNorm.weight": 1 + normal(E, std=0.1),
         "embeddings.LayerNorm.bias": normal(E, std=0.1)}
    if c["types"]:
        t["embeddings.token_type_embeddings.weight"] = normal(c["types"], E, std=0.3)
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        t[p + "attention.qkv_proj.weight"] = normal(3 * E, E, std=1.8 / np.sqrt(E))
        t[p + "attention.qkv_proj.bias"] = normal(3 * E, std=0.1)
        t[p + "attention.o_proj.weight"] = normal(E, E, std=1 / np.sqrt(E))
        t[p + "attention.o_proj.bias"] = normal(E, std=0.1)
        t[p + "mlp.up_gate_proj.weight"] = normal(2 * F, E, std=1 / np.sqrt(E))
        t[p + "mlp.down_proj.weight"] = normal(E, F, std=1 / np.sqrt(F))
        t[p + "mlp.down_proj.bias"] = normal(E, std=0.1)
        for n in ("attn_ln", "mlp_ln"):
            t[p + n + ".weight"] = 1 + normal(E, std=0.1)
            t[p + n + ".bias"] = normal(E, std=0.1)
    return t


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def gte(c, w, ids, types):
    """Last hidden states (T, E) of one unpadded sequence, float64."""
    T, H, E, F, eps = len(ids), c["H"], c["E"], c["F"], 1e-12
    D = E // H
    x = w["embeddings.word_embeddings.weight"][torch.tensor(ids)]
    if c["types"]:
        x = x + w["embeddings.token_type_embeddings.weight"][torch.tensor(types)]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    f = c["ntk"]
    inv_freq = 1.0 / ((c["theta"] * f) ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    inv_freq = inv_freq / f ** (2 / D)
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        lin = lambda v, n: v @ w[p + n + ".weight"].T + w[p + n + ".bias"]
        q, k, v = lin(x, "attention.qkv_proj").view(T, 3, H, D).unbind(1)
        q = (q * cos + rotate_half(q) * sin).transpose(0, 1)
        k = (k * cos + rotate_half(k) * sin).transpose(0, 1)
        a = torch.softmax(q @ k.transpose(1, 2) * (1 / math.sqrt(D)), dim=-1)
        attn = lin((a @ v.transpose(0, 1)).transpose(0, 1).reshape(T, E), "attention.o_proj")
        x = layer_norm(x + attn, w[p + "attn_ln.weight"], w[p + "attn_ln.bias"], eps)
        up, gate = torch.split(x @ w[p + "mlp.up_gate_proj.weight"].T, [F, F], dim=-1)
        mlp = lin(gelu(gate) * up, "mlp.down_proj")
        x = layer_norm(x + mlp, w[p + "mlp_ln.weight"], w[p + "mlp_ln.bias"], eps)
    return x


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tokenizer = os.path.join(folder, "tokenizer.json")
    c = dict(c, V=len(bert_uncased_tokenizer(tokenizer)))
    values = random_gte(c, rng)
    if c["mlm"]:
        tensors, w = store(values, c["dtype"], "new.")
        E = c["E"]
        head = {"lm_head.dense.weight": rng.normal(0, 0.1, (E, E)),
                "lm_head.dense.bias": rng.normal(0, 0.1, (E,)),
                "lm_head.norm.weight": np.ones(E), "lm_head.norm.bias": np.zeros(E),
                "lm_head.decoder.weight": values["embeddings.word_embeddings.weight"],
                "lm_head.decoder.bias": np.zeros(c["V"])}
        tensors.update(store(head, c["dtype"])[0])
    else:
        tensors, w = store(values, c["dtype"])
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    code = "Alibaba-NLP/new-impl--"
    config = {"_name_or_path": "Alibaba-NLP/" + c["hub"],
              "architectures": ["NewForMaskedLM" if c["mlm"] else "NewModel"],
              "attention_probs_dropout_prob": 0.0,
              "auto_map": {"AutoConfig": code + "configuration.NewConfig",
                           "AutoModel": code + "modeling.NewModel",
                           "AutoModelForMaskedLM": code + "modeling.NewForMaskedLM",
                           "AutoModelForSequenceClassification":
                               code + "modeling.NewForSequenceClassification"},
              "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
              "hidden_size": c["E"], "initializer_range": 0.02, "intermediate_size": c["F"],
              "layer_norm_eps": 1e-12, "layer_norm_type": "layer_norm",
              "logn_attention_clip1": False, "logn_attention_scale": False,
              "max_position_embeddings": 8192, "model_type": "new",
              "num_attention_heads": c["H"], "num_hidden_layers": c["L"], "pack_qkv": True,
              "pad_token_id": 0, "position_embedding_type": "rope",
              "rope_scaling": {"factor": c["ntk"], "type": "ntk"}, "rope_theta": c["theta"],
              "torch_dtype": "float32", "transformers_version": "4.39.1",
              "type_vocab_size": c["types"], "unpad_inputs": False,
              "use_memory_efficient_attention": False, "vocab_size": c["V"]}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    if not c["mlm"]:
        write_sentence_transformers(folder, c["E"], 8192)
        pooling = os.path.join(folder, "1_Pooling", "config.json")
        json.dump(dict(json.load(open(pooling)), pooling_mode_cls_token=True,
                       pooling_mode_mean_tokens=False), open(pooling, "w"), indent=2)
        modules = os.path.join(folder, "modules.json")
        json.dump(json.load(open(modules))[:2], open(modules, "w"), indent=2)   # no Normalize
    rows = write_texts(folder, tokenizer, MAX_TOKENS, lambda ids, types: gte(c, w, ids, types),
                       pooling="mean" if c["mlm"] else "cls")
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} {c['dtype']}, θ {c['theta']} "
          f"ntk ×{c['ntk']}, vocabulary {c['V']}, {len(rows)} texts")


CASES = [
    dict(name="gte-embedding", hub="gte-base-en-v1.5", L=2, E=32, H=4, F=48, dtype="F32",
         theta=500000, ntk=2.0, types=0, mlm=False),
    dict(name="gte-mlm", hub="gte-multilingual-base", L=2, E=32, H=2, F=64, dtype="BF16",
         theta=160000, ntk=8.0, types=1, mlm=True),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261128 + n)
