#!/usr/bin/python3
"""Golden ModernBERT folders: random checkpoints saved as Hugging Face saves them, each with a
byte-level BPE tokenizer.json of the shape of ModernBERT's own (no normalizer, ByteLevel without
a prefix space, `[CLS] A [SEP]`, [UNK] [CLS] [SEP] [PAD] [MASK] after the merges), trained here
on the texts so that words split into several pieces:

  - modernbert-embedding: ModernBertModel, whole, BF16, transformers 4.x config.json
    (global_rope_theta, local_rope_theta, global_attn_every_n_layers 3), no biases anywhere,
    a sentence-transformers pipeline (mean pooling, Normalize, max_seq_length 40), merges as
    "a b" strings;
  - modernbert-mlm: ModernBertForMaskedLM, `model.` prefix with head.* and decoder.bias, F32,
    transformers 5.x config.json (layer_types, rope_parameters, every second layer global), every
    bias present (attention_bias, mlp_bias, norm_bias true), gelu_pytorch_tanh, merges as
    ["a", "b"] pairs (what tokenizers 0.20 and later write);
  - modernbert-reranker and modernbert-3-labels: ModernBertForSequenceClassification (`model.`
    prefix, head.dense, head.norm, classifier): one label on the mean of the states (F16, no
    biases, a CrossEncoder's Sigmoid) and three on the first token (F32, every bias, softmax),
    with texts.json and pairs.json (logits = classifier(norm(gelu(dense(pooled))))).

Both have max_position_embeddings 64 and a local window (local_attention) far shorter than most
texts. The reference ids come from Hugging Face's Rust tokenizer (jobs/samples/tokenize_ids.js on npm's
`tokenizers` 0.13.3, which reads merges as strings: the pair form is written after); the
reference outputs from a float64 PyTorch port of modeling_modernbert.py's eager path: embeddings
norm, layer 0 without attn_norm, Wqkv, rotary on q and k (rotate_half, θ per layer type), the
sliding-window mask |i − j| ≤ local_attention // 2 on layers i with i % every != 0, softmax,
Wo, mlp_norm, Wi chunked into input and gate, act(input) · gate, Wo, final_norm.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_modernbert_cases.py src/test/resources/modernbert-cases
"""
import json, os, re, shutil, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_bert_cases import act, stored, write_safetensors, write_sentence_transformers  # noqa
from make_xlmr_cases import PAIRS, TEXTS as XLMR_TEXTS, reference_ids  # noqa: E402
from make_classifier_cases import scores  # noqa: E402
from family_cases import bpe_merges  # noqa: E402

MAX_TOKENS = 40        # the jobs' token limit
POSITIONS = 64         # max_position_embeddings
TEXTS = [t for t in XLMR_TEXTS if t[0] != "long"] + [   # eight languages, emoji, "", spaces
    ["window", "Rotary positions let each local layer see only its neighbours, while every "
               "third layer sees the whole text."],
    ["long", "This sentence is repeated to go past the limit of tokens. " * 8],
]


def bytes_to_unicode():
    """GPT-2's map from bytes to printable characters, as ByteLevel uses it."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def train_bpe(merges_wanted):
    """Byte-level BPE on the texts: words as ByteLevel splits them (roughly; the reference ids
    come from the real tokenizer), the most frequent pair merged until none occurs twice."""
    b2u = bytes_to_unicode()
    counts = {}
    for _, text in TEXTS:
        for word in re.findall(r" ?\w+| ?[^\s\w]+|\s+", text):
            key = tuple(b2u[b] for b in word.encode("utf-8"))
            counts[key] = counts.get(key, 0) + 1
    vocab = [b2u[b] for b in sorted(b2u)]
    merges = bpe_merges(counts, merges_wanted)
    return vocab + [a + b for a, b in merges], merges


SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]


def tokenizer_json(vocab, merges, pair_merges):
    ids = {t: i for i, t in enumerate(vocab)}
    for s in SPECIALS:
        ids[s] = len(ids)
    tok = lambda t, y: {"SpecialToken": {"id": t, "type_id": y}}
    seq = lambda s, y: {"Sequence": {"id": s, "type_id": y}}
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": ids[s], "content": s, "single_word": False,
                              "lstrip": s == "[MASK]", "rstrip": False, "normalized": False,
                              "special": True} for s in SPECIALS],
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                              "trim_offsets": True, "use_regex": True},
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0)],
                "pair": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0), seq("B", 1),
                         tok("[SEP]", 1)],
                "special_tokens": {s: {"id": s, "ids": [ids[s]], "tokens": [s]}
                                   for s in ("[CLS]", "[SEP]")}},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                        "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": False,
                      "vocab": {t: i for t, i in ids.items() if t not in SPECIALS},
                      "merges": [list(m) for m in merges] if pair_merges
                      else [f"{a} {b}" for a, b in merges]}}, ids


def random_modernbert(c, rng):
    E, F, V, L = c["E"], c["F"], c["V"], c["L"]
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embeddings.tok_embeddings.weight": normal(V, E, std=0.5)}

    def norm(prefix):
        t[prefix + "weight"] = 1 + normal(E, std=0.1)
        if c["bias"]:
            t[prefix + "bias"] = normal(E, std=0.1)

    def linear(name, rows, cols, std):
        t[name + ".weight"] = normal(rows, cols, std=std)
        if c["bias"]:
            t[name + ".bias"] = normal(rows, std=0.1)
    norm("embeddings.norm.")
    for i in range(L):
        p = f"layers.{i}."
        if i > 0:
            norm(p + "attn_norm.")
        linear(p + "attn.Wqkv", 3 * E, E, 1.8 / np.sqrt(E))
        linear(p + "attn.Wo", E, E, 1 / np.sqrt(E))
        norm(p + "mlp_norm.")
        linear(p + "mlp.Wi", 2 * F, E, 1 / np.sqrt(E))
        linear(p + "mlp.Wo", E, F, 1 / np.sqrt(F))
    norm("final_norm.")
    return t


def layer_globals(c):
    return [i % c["every"] == 0 for i in range(c["L"])]


def modernbert(c, w, ids, keys=None):
    """Last hidden states (T, E) of one unpadded sequence, float64, as modeling_modernbert.py's
    eager attention computes them (positions 0..T-1); keys: only the first `keys` tokens are
    attended to (an attention mask of 0 on the rest), all when None."""
    T, H, E = len(ids), c["H"], c["E"]
    D = E // H

    def ln(x, prefix):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        y = (x - mean) / torch.sqrt(var + c["eps"]) * w[prefix + "weight"]
        return y + w[prefix + "bias"] if prefix + "bias" in w else y

    def lin(x, name):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    def rotate_half(x):
        return torch.cat((-x[..., D // 2:], x[..., :D // 2]), dim=-1)

    dtype = w["embeddings.tok_embeddings.weight"].dtype     # float64 here, float32 in benchmarks
    positions = torch.arange(T, dtype=dtype)
    distance = (positions[:, None] - positions[None, :]).abs()
    x = ln(w["embeddings.tok_embeddings.weight"][torch.tensor(ids, dtype=torch.long)],
           "embeddings.norm.")
    for i, is_global in enumerate(layer_globals(c)):
        p = f"layers.{i}."
        h = x if i == 0 else ln(x, p + "attn_norm.")
        qkv = lin(h, p + "attn.Wqkv").view(T, 3, H, D)
        q, k, v = (qkv[:, j].transpose(0, 1) for j in range(3))        # (H, T, D)
        theta = c["global_theta"] if is_global else c["local_theta"]
        inv_freq = 1.0 / theta ** (torch.arange(0, D, 2, dtype=dtype) / D)
        freqs = positions[:, None] * inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        s = q @ k.transpose(1, 2) / np.sqrt(D)
        # transformers' additive masks: the dtype's most negative value, so a query that no key
        # may see weighs all of them alike (-inf would make its row NaN)
        most_negative = torch.finfo(s.dtype).min
        if not is_global:
            s = s.masked_fill(distance > c["local_attention"] // 2, most_negative)
        if keys is not None:
            s[..., keys:] = most_negative
        a = torch.softmax(s, dim=-1)
        ctx = (a @ v).transpose(0, 1).reshape(T, E)
        x = x + lin(ctx, p + "attn.Wo")
        inp, gate = lin(ln(x, p + "mlp_norm."), p + "mlp.Wi").chunk(2, dim=-1)
        x = x + lin(act(c["act"], inp) * gate, p + "mlp.Wo")
    return ln(x, "final_norm.")


def config_json(c, vocab_size, ids):
    config = {"architectures": [c["architecture"]], "model_type": "modernbert",
              "hidden_size": c["E"], "num_hidden_layers": c["L"],
              "num_attention_heads": c["H"], "intermediate_size": c["F"],
              "hidden_activation": c["act_name"], "max_position_embeddings": POSITIONS,
              "norm_eps": c["eps"], "norm_bias": c["bias"], "attention_bias": c["bias"],
              "mlp_bias": c["bias"], "local_attention": c["local_attention"],
              "global_attn_every_n_layers": c["every"], "vocab_size": vocab_size,
              "pad_token_id": ids["[PAD]"], "cls_token_id": ids["[CLS]"],
              "sep_token_id": ids["[SEP]"], "bos_token_id": ids["[CLS]"],
              "eos_token_id": ids["[SEP]"], "classifier_pooling": "mean",
              "embedding_dropout": 0.0, "attention_dropout": 0.0, "mlp_dropout": 0.0,
              "tie_word_embeddings": True}
    labels = c.get("labels")
    if labels:
        config.update(classifier_pooling=c["pooling"], classifier_bias=c["classifier_bias"],
                      classifier_activation="gelu",
                      id2label={str(i): l for i, l in enumerate(labels)},
                      label2id={l: i for i, l in enumerate(labels)})
        if c.get("activation"):
            config["sentence_transformers"] = {"activation_fn": c["activation"],
                                               "version": "4.1.0"}
    if c["config_form"] == "4.x":
        config.update(global_rope_theta=c["global_theta"], local_rope_theta=c["local_theta"],
                      transformers_version="4.48.0")
    else:
        config.update(layer_types=["full_attention" if g else "sliding_attention"
                                   for g in layer_globals(c)],
                      rope_parameters={
                          "full_attention": {"rope_type": "default",
                                             "rope_theta": c["global_theta"]},
                          "sliding_attention": {"rope_type": "default",
                                                "rope_theta": c["local_theta"]}},
                      transformers_version="5.0.0")
    return config


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    vocab, merges = train_bpe(400)
    as_strings, ids = tokenizer_json(vocab, merges, pair_merges=False)
    tokenizer = os.path.join(folder, "tokenizer.json")
    json.dump(as_strings, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    texts = reference_ids(tokenizer, [{"id": i, "a": t} for i, t in TEXTS], MAX_TOKENS,
                          strip=c["sentence_transformers"])
    strings = os.path.join(out, "tokenizer-merges-as-strings.json")
    json.dump(as_strings, open(strings, "w", encoding="utf-8"), ensure_ascii=False)
    if c["pair_merges"]:
        json.dump(tokenizer_json(vocab, merges, pair_merges=True)[0],
                  open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    assert any(r["full_length"] > MAX_TOKENS for r in texts), "no text is cut"
    assert sum(len(r["input_ids"]) > c["local_attention"] for r in texts) >= 5
    c = dict(c, V=len(ids))
    values = random_modernbert(c, rng)
    tensors, w = {}, {}
    for name, v in values.items():
        raw, back = stored(v, c["dtype"])
        tensors[c["prefix"] + name] = (c["dtype"], v.shape, raw)
        w[name] = back
    E = c["E"]
    labels = c.get("labels")
    if labels:        # ModernBertForSequenceClassification: head (dense, norm) and classifier
        head = {"head.dense.weight": rng.normal(0.0, 1 / np.sqrt(E), size=(E, E)),
                "head.norm.weight": 1 + rng.normal(0.0, 0.1, size=(E,)),
                "classifier.weight": rng.normal(0.0, 1.0, size=(len(labels), E)),
                "classifier.bias": rng.normal(0.0, 0.1, size=(len(labels),))}
        if c["classifier_bias"]:
            head["head.dense.bias"] = rng.normal(0.0, 0.1, size=(E,))
        if c["bias"]:
            head["head.norm.bias"] = rng.normal(0.0, 0.1, size=(E,))
        for name, v in head.items():
            raw, back = stored(v, c["dtype"])
            tensors[name] = (c["dtype"], v.shape, raw)
            w[name] = back
    elif c["prefix"]:   # ModernBertForMaskedLM: its head, decoder.bias (decoder.weight is tied)
        for name, shape in (("head.dense.weight", (E, E)), ("head.norm.weight", (E,)),
                            ("head.norm.bias", (E,)), ("decoder.bias", (len(ids),))):
            raw, _ = stored(rng.normal(0.0, 0.1, size=shape), c["dtype"])
            tensors[name] = (c["dtype"], shape, raw)
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    json.dump(config_json(c, len(ids), ids), open(os.path.join(folder, "config.json"), "w"),
              indent=2)

    def forward(row):
        h = modernbert(c, w, row["input_ids"])
        keys = ("id", "a", "b", "input_ids", "token_type_ids", "tokens") if "b" in row \
            else ("id", "a", "input_ids", "tokens")
        out = {k: row[k] for k in keys}
        if labels:   # the pooled state, head.dense, GELU, head.norm, classifier
            x = h.mean(0) if c["pooling"] == "mean" else h[0]
            x = x @ w["head.dense.weight"].T + w.get("head.dense.bias", 0)
            x = act("gelu", x)
            mean = x.mean()
            x = (x - mean) / torch.sqrt(((x - mean) ** 2).mean() + c["eps"])
            x = x * w["head.norm.weight"] + w.get("head.norm.bias", 0)
            logits = x @ w["classifier.weight"].T + w["classifier.bias"]
            out["logits"] = [float(f"{v:.10g}") for v in logits.tolist()]
            out["scores"] = [float(f"{v:.10g}") for v in scores(logits, c).tolist()]
            out["label"] = labels[int(torch.argmax(logits))]
            return out
        mean = h.mean(0)
        pooled = mean / mean.norm() if c["sentence_transformers"] else mean
        out["last_hidden_state"] = [[float(f"{v:.8g}") for v in r] for r in h.tolist()]
        out["pooled"] = [float(f"{v:.10g}") for v in pooled.tolist()]
        return out
    json.dump([forward(r) for r in texts], open(os.path.join(folder, "texts.json"), "w"),
              separators=(",", ":"), ensure_ascii=False)
    if labels:
        pairs = reference_ids(tokenizer if not c["pair_merges"] else strings, [
            {"id": i, "a": a, "b": b} for i, a, b in PAIRS], MAX_TOKENS)
        json.dump([forward(r) for r in pairs], open(os.path.join(folder, "pairs.json"), "w"),
                  separators=(",", ":"), ensure_ascii=False)
    if c["sentence_transformers"]:
        write_sentence_transformers(folder, c["E"], MAX_TOKENS)
    os.remove(strings)
    print(f"{folder}: L={c['L']} E={c['E']} {c['dtype']}, vocabulary {len(ids)} "
          f"({len(merges)} merges), {len(texts)} texts, config {c['config_form']}"
          + (f", {len(labels)} labels, {c['pooling']} pooling" if labels else ""))


CASES = [
    dict(name="modernbert-embedding", architecture="ModernBertModel", prefix="", L=4, E=32,
         H=4, F=48, dtype="BF16", bias=False, act="gelu", act_name="gelu", eps=1e-5,
         local_attention=8, every=3, global_theta=160000.0, local_theta=10000.0,
         config_form="4.x", pair_merges=False, sentence_transformers=True),
    dict(name="modernbert-mlm", architecture="ModernBertForMaskedLM", prefix="model.", L=3,
         E=48, H=6, F=40, dtype="F32", bias=True, act="gelu_new", act_name="gelu_pytorch_tanh",
         eps=1e-6, local_attention=6, every=2, global_theta=80000.0, local_theta=5000.0,
         config_form="5.x", pair_merges=True, sentence_transformers=False),
    dict(name="modernbert-reranker", architecture="ModernBertForSequenceClassification",
         prefix="model.", L=3, E=32, H=4, F=48, dtype="F16", bias=False, act="gelu",
         act_name="gelu", eps=1e-5, local_attention=8, every=3, global_theta=160000.0,
         local_theta=10000.0, config_form="4.x", pair_merges=False, sentence_transformers=False,
         labels=["LABEL_0"], pooling="mean", classifier_bias=False, problem_type=None,
         activation="torch.nn.modules.activation.Sigmoid"),
    dict(name="modernbert-3-labels", architecture="ModernBertForSequenceClassification",
         prefix="model.", L=2, E=48, H=6, F=40, dtype="F32", bias=True, act="gelu",
         act_name="gelu", eps=1e-5, local_attention=6, every=2, global_theta=80000.0,
         local_theta=5000.0, config_form="5.x", pair_merges=True, sentence_transformers=False,
         labels=["negative", "neutral", "positive"], pooling="cls", classifier_bias=True,
         problem_type=None, activation=None),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261124 + n)
