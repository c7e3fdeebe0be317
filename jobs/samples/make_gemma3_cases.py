#!/usr/bin/python3
"""Golden Gemma3 folders: random checkpoints saved as EmbeddingGemma's are (model_type
gemma3_text, Gemma3TextModel tensor names, its config.json keys), with a SentencePiece-BPE-like
tokenizer.json of Gemma's form (spaces replaced by ▁, BPE with byte fallback, <pad> <eos> <bos>
<unk> first, `<bos> A <eos>`), trained here on the texts:

  - gemma3-embedding: F32, 4 layers with layer_types (sliding, sliding, sliding, full), a
    bidirectional sliding window of 8 (4 positions either side), 2 query heads on 1 KV head of
    head_dim 16 in a width of 24, query_pre_attn_scalar 16, EmbeddingGemma's sentence-transformers
    pipeline (mean pooling, 2_Dense 24 → 48, 3_Dense 48 → 24, Normalize) and prompts; texts.json
    holds the texts with the "query" prompt put before them;
  - gemma3-causal: BF16 under `model.`, _sliding_window_pattern 2 without layer_types, causal
    (no use_bidirectional_attention), a sliding window of 6, no sentence-transformers files (so
    the job pools the last token).

The reference outputs come from a float64 port of modeling_gemma3.py: embed_tokens · √E; per
layer Gemma3RMSNorm (x · rsqrt(mean(x²) + eps) · (1 + w)) before attention, q_norm and k_norm,
rotary (rope_local_base_freq on sliding layers, rope_theta on full ones), repeat_kv, softmax of
q·kᵀ · query_pre_attn_scalar^−½ with the sliding mask (|i − j| ≤ sliding_window / 2 both ways,
or i − j < sliding_window causally), o_proj, post_attention_layernorm, residual;
pre_feedforward_layernorm, down(gelu_tanh(gate) · up), post_feedforward_layernorm, residual;
final norm; then mean pooling and the Dense modules.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_gemma3_cases.py src/test/resources/gemma3-cases
"""
import json, math, os, shutil, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import TEXTS, store  # noqa: E402
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402
from make_xlmr_cases import reference_ids  # noqa: E402

MAX_TOKENS = 48
SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>"]
PROMPTS = {"query": "task: search result | query: ", "document": "title: none | text: "}


def tokenizer_json(merges_wanted=300):
    """BPE over words with ▁ before them, characters seen in the texts as the base (others fall
    back to bytes), the most frequent pair merged until none occurs twice."""
    words = {}
    for _, text in TEXTS + [["p", p] for p in PROMPTS.values()]:
        for w in text.split():
            key = tuple("▁" + w)
            words[key] = words.get(key, 0) + 1
    chars = sorted({c for w in words for c in w if c != "☃"})
    vocab = SPECIALS + [f"<0x{b:02X}>" for b in range(256)] + chars
    merges = []
    while len(merges) < merges_wanted:
        pairs = {}
        for w, n in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + n
        if not pairs:
            break
        (a, b), n = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        if n < 2:
            break
        merges.append((a, b))
        vocab.append(a + b)
        merged = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == (a, b):
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + c
        words = merged
    ids = {t: i for i, t in enumerate(dict.fromkeys(vocab))}
    special = lambda t: {"SpecialToken": {"id": t, "type_id": 0}}
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": ids[s], "content": s, "single_word": False, "lstrip": False,
                              "rstrip": False, "normalized": False, "special": True}
                             for s in SPECIALS],
            "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
            "pre_tokenizer": None,
            "post_processor": {"type": "TemplateProcessing",
                               "single": [special("<bos>"), {"Sequence": {"id": "A",
                                                                          "type_id": 0}},
                                          special("<eos>")],
                               "pair": [special("<bos>"), {"Sequence": {"id": "A", "type_id": 0}},
                                        special("<eos>"), {"Sequence": {"id": "B",
                                                                        "type_id": 0}},
                                        special("<eos>")],
                               "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]}
                                                  for t in ("<bos>", "<eos>")}},
            "decoder": None,
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": True, "byte_fallback": True, "vocab": ids,
                      "merges": [f"{a} {b}" for a, b in merges]}}, len(ids)


def random_gemma3(c, rng):
    E, F, V, H, K, D = c["E"], c["F"], c["V"], c["H"], c["K"], c["D"]
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embed_tokens.weight": normal(V, E, std=0.3), "norm.weight": normal(E, std=0.2)}
    for i in range(c["L"]):
        p = f"layers.{i}."
        t[p + "self_attn.q_proj.weight"] = normal(H * D, E, std=1.6 / np.sqrt(E))
        t[p + "self_attn.k_proj.weight"] = normal(K * D, E, std=1.6 / np.sqrt(E))
        t[p + "self_attn.v_proj.weight"] = normal(K * D, E, std=1 / np.sqrt(E))
        t[p + "self_attn.o_proj.weight"] = normal(E, H * D, std=1 / np.sqrt(H * D))
        t[p + "self_attn.q_norm.weight"] = normal(D, std=0.2)
        t[p + "self_attn.k_norm.weight"] = normal(D, std=0.2)
        t[p + "mlp.gate_proj.weight"] = normal(F, E, std=1 / np.sqrt(E))
        t[p + "mlp.up_proj.weight"] = normal(F, E, std=1 / np.sqrt(E))
        t[p + "mlp.down_proj.weight"] = normal(E, F, std=1 / np.sqrt(F))
        for n in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                  "post_feedforward_layernorm"):
            t[p + n + ".weight"] = normal(E, std=0.2)
    return t


def rms(x, weight, eps=1e-6):
    """Gemma3RMSNorm's: x · rsqrt(mean(x²) + eps) · (1 + w)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1.0 + weight)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def gemma3(c, w, ids):
    """Last hidden states (T, E) of one unpadded sequence, float64."""
    T, E, H, K, D = len(ids), c["E"], c["H"], c["K"], c["D"]
    x = w["embed_tokens.weight"][torch.tensor(ids)] * torch.tensor(E ** 0.5, dtype=torch.float32)
    i_pos = torch.arange(T)[:, None]
    j_pos = torch.arange(T)[None, :]
    for i in range(c["L"]):
        p = f"layers.{i}."
        a = p + "self_attn."
        sliding = c["types"][i] == "sliding_attention"
        base = c["local_base"] if sliding else c["theta"]
        inv_freq = 1.0 / (base ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
        emb = torch.cat([torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)] * 2, -1)
        cos, sin = emb.cos()[None], emb.sin()[None]
        if c["bidirectional"]:
            allowed = (i_pos - j_pos).abs() <= c["window"] // 2 if sliding else i_pos >= 0
        else:
            allowed = (j_pos <= i_pos) & ((i_pos - j_pos < c["window"]) if sliding else True)
        mask = torch.where(allowed, 0.0, float("-inf")).to(torch.float64)
        h = rms(x, w[p + "input_layernorm.weight"])
        q = rms((h @ w[a + "q_proj.weight"].T).view(T, H, D).transpose(0, 1), w[a + "q_norm.weight"])
        k = rms((h @ w[a + "k_proj.weight"].T).view(T, K, D).transpose(0, 1), w[a + "k_norm.weight"])
        v = (h @ w[a + "v_proj.weight"].T).view(T, K, D).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = (k * cos + rotate_half(k) * sin).repeat_interleave(H // K, dim=0)
        v = v.repeat_interleave(H // K, dim=0)
        scores = q @ k.transpose(1, 2) * c["scalar"] ** -0.5 + mask
        o = (torch.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(T, H * D)
        x = x + rms(o @ w[a + "o_proj.weight"].T, w[p + "post_attention_layernorm.weight"])
        h = rms(x, w[p + "pre_feedforward_layernorm.weight"])
        mlp = (gelu_tanh(h @ w[p + "mlp.gate_proj.weight"].T) * (h @ w[p + "mlp.up_proj.weight"].T)
               ) @ w[p + "mlp.down_proj.weight"].T
        x = x + rms(mlp, w[p + "post_feedforward_layernorm.weight"])
    return rms(x, w["norm.weight"])


def write_dense(folder, name, rows, cols, rng):
    os.makedirs(os.path.join(folder, name))
    json.dump({"in_features": cols, "out_features": rows, "bias": False,
               "activation_function": "torch.nn.modules.linear.Identity"},
              open(os.path.join(folder, name, "config.json"), "w"), indent=2)
    tensors, w = store({"linear.weight": rng.normal(0, 1 / np.sqrt(cols), (rows, cols))}, "F32")
    write_safetensors(os.path.join(folder, name, "model.safetensors"), tensors)
    return w["linear.weight"]


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tokenizer = os.path.join(folder, "tokenizer.json")
    content, size = tokenizer_json()
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(c, V=size)
    values = random_gemma3(c, rng)
    tensors, w = store(values, c["dtype"], "model." if c["prefix"] else "")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"architectures": ["Gemma3TextModel"], "attention_bias": False,
              "attention_dropout": 0.0, "attn_logit_softcapping": None, "bos_token_id": 2,
              "eos_token_id": 1, "final_logit_softcapping": None, "head_dim": c["D"],
              "hidden_activation": "gelu_pytorch_tanh", "hidden_size": c["E"],
              "initializer_range": 0.02, "intermediate_size": c["F"],
              "max_position_embeddings": 2048, "model_type": "gemma3_text",
              "num_attention_heads": c["H"], "num_hidden_layers": c["L"],
              "num_key_value_heads": c["K"], "pad_token_id": 0,
              "query_pre_attn_scalar": c["scalar"], "rms_norm_eps": 1e-06,
              "rope_local_base_freq": c["local_base"], "rope_scaling": None,
              "rope_theta": c["theta"], "sliding_window": c["window"],
              "torch_dtype": "float32", "transformers_version": "4.57.0.dev0",
              "use_cache": True, "vocab_size": size}
    if c["bidirectional"]:
        config["use_bidirectional_attention"] = True
    if c["layer_types"]:
        config["layer_types"] = c["types"]
    else:
        config["_sliding_window_pattern"] = c["pattern"]
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    prompt, dense = "", []
    if c["st"]:
        write_sentence_transformers(folder, c["E"], 2048)
        dense = [write_dense(folder, "2_Dense", 2 * c["E"], c["E"], rng),
                 write_dense(folder, "3_Dense", c["E"], 2 * c["E"], rng)]
        modules = json.load(open(os.path.join(folder, "modules.json")))
        modules = modules[:2] + [
            {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
            {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"},
            dict(modules[2], idx=4, name="4", path="4_Normalize")]
        json.dump(modules, open(os.path.join(folder, "modules.json"), "w"), indent=2)
        json.dump({"prompts": PROMPTS, "default_prompt_name": None,
                   "similarity_fn_name": "cosine"},
                  open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)
        prompt = PROMPTS["query"]
    rows = reference_ids(tokenizer, [{"id": i, "a": prompt + t} for i, t in TEXTS], MAX_TOKENS,
                         strip=c["st"])
    assert any(r["full_length"] > MAX_TOKENS for r in rows), "no text is cut"
    out_rows = []
    for row, (_, text) in zip(rows, TEXTS):
        h = gemma3(c, w, row["input_ids"])
        s = h.mean(0) if c["st"] else h[-1]     # without 1_Pooling a causal model's last token
        for d in dense:
            s = d @ s
        out_rows.append({"id": row["id"], "a": text, "input_ids": row["input_ids"],
                         "tokens": row["tokens"],
                         "last_hidden_state": [[float(f"{v:.8g}") for v in r] for r in h.tolist()],
                         "pooled": [float(f"{v:.10g}") for v in (s / s.norm()).tolist()]})
    json.dump(out_rows, open(os.path.join(folder, "texts.json"), "w", encoding="utf-8"),
              separators=(",", ":"), ensure_ascii=False)
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} KV={c['K']} D={c['D']} {c['dtype']}, "
          f"vocabulary {size}, {len(rows)} texts, longest {max(len(r['input_ids']) for r in rows)}")


CASES = [
    dict(name="gemma3-embedding", L=4, E=24, H=2, K=1, D=16, F=40, scalar=16, window=8,
         types=["sliding_attention"] * 3 + ["full_attention"], layer_types=True, pattern=4,
         theta=1000000.0, local_base=10000.0, bidirectional=True, dtype="F32", prefix=False,
         st=True),
    dict(name="gemma3-causal", L=4, E=24, H=2, K=2, D=12, F=40, scalar=12, window=6,
         types=["sliding_attention", "full_attention"] * 2, layer_types=False, pattern=2,
         theta=10000.0, local_base=1000.0, bidirectional=False, dtype="BF16", prefix=True,
         st=False),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261131 + n)
