"""What the family case makers share (jobs/samples/make_<family>_cases.py): the texts, a
WordPiece tokenizer.json cut from BERT's uncased vocabulary, random tensors stored as the Hub
stores them, and texts.json with the reference ids (Hugging Face's Rust tokenizer), last hidden
states and pooled vectors of the family's float64 port.

A cut vocabulary keeps every piece BERT's own tokenizer gives the texts (so words still split
into several pieces, and a character the vocabulary lacks still gives [UNK]): greedy
longest-match WordPiece then splits the texts exactly as the whole vocabulary would.
"""
import json, os, shutil, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_bert_cases import stored, write_safetensors, write_sentence_transformers  # noqa
from make_xlmr_cases import PAIRS, TEXTS as XLMR_TEXTS, reference_ids  # noqa: E402
from make_classifier_cases import scores  # noqa: E402

MINILM = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "models",
                                       "all-MiniLM-L6-v2", "tokenizer.json"))
TEXTS = [t for t in XLMR_TEXTS if t[0] != "long"] + [
    ["code", "def f(x): return x**2  # squares, café-style"],
    ["long", "Relative positions reach far beyond the nearest neighbours in this text. " * 12],
]


def wordpiece_vocabulary(specials_before, specials_after, extra=()):
    """Specials, then BERT's pieces for the texts and the extra ones (prompts; BERT's own
    specials among them), then more specials; ids in that order."""
    pieces = set()
    rows = [{"id": i, "a": t} for i, t in TEXTS] + [{"id": "x", "a": t} for t in extra]
    for row in reference_ids(MINILM, rows, 100_000):
        pieces.update(row["tokens"])
    pieces.update(["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"])
    pieces -= set(specials_before) | set(specials_after)
    return specials_before + sorted(pieces) + specials_after


def wordpiece_tokenizer(vocab, special, post_processor):
    """tokenizer.json of BERT's uncased form (BertNormalizer, BertPreTokenizer, WordPiece) with
    the family's specials (added tokens) and post-processor."""
    ids = {t: i for i, t in enumerate(vocab)}
    added = [{"id": ids[t], "content": t, "single_word": False, "lstrip": t == "<mask>",
              "rstrip": False, "normalized": False, "special": True} for t in special]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": True,
                           "handle_chinese_chars": True, "strip_accents": None,
                           "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": post_processor,
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]",
                      "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                      "vocab": ids}}


def bert_uncased_tokenizer(path, extra=()):
    """bert-base-uncased's form ([PAD] [UNK] [CLS] [SEP] [MASK] first here; `[CLS] A [SEP]`,
    pairs `[CLS] A [SEP] B [SEP]` with type 1 on B), cut to the texts and the extra ones, written
    to path; returns its vocabulary."""
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = wordpiece_vocabulary(specials, [], extra)
    tok = lambda t, type_id=0: {"SpecialToken": {"id": t, "type_id": type_id}}
    post = {"type": "TemplateProcessing",
            "single": [tok("[CLS]"), {"Sequence": {"id": "A", "type_id": 0}}, tok("[SEP]")],
            "pair": [tok("[CLS]"), {"Sequence": {"id": "A", "type_id": 0}}, tok("[SEP]"),
                     {"Sequence": {"id": "B", "type_id": 1}}, tok("[SEP]", 1)],
            "special_tokens": {t: {"id": t, "ids": [vocab.index(t)], "tokens": [t]}
                               for t in ("[CLS]", "[SEP]")}}
    json.dump(wordpiece_tokenizer(vocab, specials, post), open(path, "w", encoding="utf-8"),
              ensure_ascii=False)
    return vocab


def write_classifier_rows(folder, tokenizer, max_tokens, forward, head, c):
    """texts.json and pairs.json of a classifier: each row's reference ids and type ids, the
    logits head(forward(ids, types)) gives, the scores the pipeline reports, the label."""
    for file, rows in (("texts.json", [{"id": i, "a": t} for i, t in TEXTS]),
                       ("pairs.json", [{"id": i, "a": a, "b": b} for i, a, b in PAIRS])):
        out = []
        for row in reference_ids(tokenizer, rows, max_tokens):
            logits = head(forward(row["input_ids"], row["token_type_ids"]))
            out.append({k: row[k] for k in ("id", "a", "b", "input_ids", "token_type_ids")
                        if k in row}
                       | {"logits": [float(f"{v:.10g}") for v in logits.tolist()],
                          "scores": [float(f"{v:.10g}") for v in scores(logits, c).tolist()],
                          "label": c["labels"][int(torch.argmax(logits))]})
        json.dump(out, open(os.path.join(folder, file), "w", encoding="utf-8"),
                  separators=(",", ":"), ensure_ascii=False)


def store(values, dtype, prefix=""):
    """Tensors as a safetensors file holds them (name → (dtype, shape, bytes)) and the stored
    values back in float64, by unprefixed name."""
    tensors, w = {}, {}
    for name, v in values.items():
        raw, back = stored(v, dtype)
        tensors[prefix + name] = (dtype, v.shape, raw)
        w[name] = back
    return tensors, w


def write_texts(folder, tokenizer, max_tokens, forward, pooling="mean", prompt="",
                ids=reference_ids, texts=TEXTS, strip=None):
    """texts.json: each text's reference ids (the prompt put before it, the whole stripped as
    sentence-transformers strips it in a folder with modules.json unless `strip` says otherwise,
    cut at max_tokens; by `ids`,
    reference_ids' signature), the port's last hidden states and its pooled (cls, mean or last
    token), normalized vector."""
    rows = ids(tokenizer, [{"id": i, "a": prompt + t} for i, t in texts],
               max_tokens, strip=os.path.exists(os.path.join(folder, "modules.json"))
               if strip is None else strip)
    assert any(r["full_length"] > max_tokens for r in rows), "no text is cut"
    out = []
    for row, (_, text) in zip(rows, texts):
        h = forward(row["input_ids"], row["token_type_ids"])
        s = h[0] if pooling == "cls" else h[-1] if pooling == "last" else h.mean(0)
        out.append({"id": row["id"], "a": text, "input_ids": row["input_ids"],
                    "tokens": row["tokens"],
                    "last_hidden_state": [[float(f"{v:.8g}") for v in r] for r in h.tolist()],
                    "pooled": [float(f"{v:.10g}") for v in (s / s.norm()).tolist()]})
    json.dump(out, open(os.path.join(folder, "texts.json"), "w", encoding="utf-8"),
              separators=(",", ":"), ensure_ascii=False)
    return out


def layer_norm(x, g, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * g + b


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x / np.sqrt(2)))


def case_folder(out, name):
    """An empty folder for case `name` under `out`."""
    folder = os.path.join(out, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder


def write_shards(folder, tensors):
    """The tensors in two shards and their model.safetensors.index.json, as the Hub shards a
    large checkpoint."""
    names = sorted(tensors)
    half = len(names) // 2
    weight_map = {}
    for s, part in enumerate((names[:half], names[half:])):
        file = f"model-{s + 1:05d}-of-00002.safetensors"
        write_safetensors(os.path.join(folder, file), {n: tensors[n] for n in part})
        weight_map.update({n: file for n in part})
    json.dump({"metadata": {"total_size": sum(len(t[2]) for t in tensors.values())},
               "weight_map": weight_map},
              open(os.path.join(folder, "model.safetensors.index.json"), "w"), indent=2)


def write_last_token_pipeline(folder, width, max_seq, prompts):
    """A decoder embedder's sentence-transformers files: Transformer, last-token Pooling that
    counts the prompt, Normalize, and config_sentence_transformers.json's prompts."""
    write_sentence_transformers(folder, width, max_seq)
    pooling = os.path.join(folder, "1_Pooling", "config.json")
    json.dump(dict(json.load(open(pooling)), pooling_mode_mean_tokens=False,
                   pooling_mode_lasttoken=True, include_prompt=True),
              open(pooling, "w"), indent=2)
    json.dump({"prompts": prompts, "default_prompt_name": None},
              open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)


def rms_norm(x, weight, eps):
    """Qwen3RMSNorm's."""
    variance = x.pow(2).mean(-1, keepdim=True)
    return weight * (x * torch.rsqrt(variance + eps))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def random_decoder(c, rng):
    """Llama-shaped weights: Qwen2's, with biases on q, k, v where c["bias"] and Qwen3's q/k
    norms where c["qk_norm"]."""
    E, F, V, H, K = c["E"], c["F"], c["V"], c["H"], c["K"]
    D = c.get("D") or E // H
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embed_tokens.weight": normal(V, E, std=1.0), "norm.weight": 1 + normal(E, std=0.1)}
    for i in range(c["L"]):
        p = f"layers.{i}."
        for name, rows, std in (("q", H * D, 1.6), ("k", K * D, 1.6), ("v", K * D, 1.0)):
            t[p + f"self_attn.{name}_proj.weight"] = normal(rows, E, std=std / np.sqrt(E))
            if c["bias"]:
                t[p + f"self_attn.{name}_proj.bias"] = normal(rows, std=0.5)
        t[p + "self_attn.o_proj.weight"] = normal(E, H * D, std=1 / np.sqrt(H * D))
        if c.get("qk_norm"):
            t[p + "self_attn.q_norm.weight"] = 1 + normal(D, std=0.2)
            t[p + "self_attn.k_norm.weight"] = 1 + normal(D, std=0.2)
        t[p + "mlp.gate_proj.weight"] = normal(F, E, std=1 / np.sqrt(E))
        t[p + "mlp.up_proj.weight"] = normal(F, E, std=1 / np.sqrt(E))
        t[p + "mlp.down_proj.weight"] = normal(E, F, std=1 / np.sqrt(F))
        t[p + "input_layernorm.weight"] = 1 + normal(E, std=0.1)
        t[p + "post_attention_layernorm.weight"] = 1 + normal(E, std=0.1)
    return t


def llama3_frequencies(inv_freq, factor, low_freq_factor, high_freq_factor,
                       original_max_position_embeddings):
    """transformers' _compute_llama3_parameters (modeling_rope_utils.py): long wavelengths slowed
    by factor, short ones kept, the band between blended."""
    low_wavelen = original_max_position_embeddings / low_freq_factor
    high_wavelen = original_max_position_embeddings / high_freq_factor
    wavelen = 2 * np.pi / inv_freq
    scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = ((original_max_position_embeddings / wavelen - low_freq_factor)
              / (high_freq_factor - low_freq_factor))
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(medium, smoothed, scaled)


def decoder(c, w, ids):
    """Last hidden states (T, E) of one unpadded sequence, float64, as modeling_qwen2.py (and
    modeling_mistral.py: no biases, and its sliding window where c["window"]; modeling_qwen3.py:
    q/k norms where c["qk_norm"]) computes them."""
    T, E, H, K, eps = len(ids), c["E"], c["H"], c["K"], c["eps"]
    D = c.get("D") or E // H
    x = w["embed_tokens.weight"][torch.tensor(ids)]
    inv_freq = 1.0 / (c["theta"] ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    if c.get("llama3"):
        inv_freq = llama3_frequencies(inv_freq, **c["llama3"])
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[None], emb.sin()[None]                          # (1, T, D)
    q_pos = torch.arange(T)[:, None]
    k_pos = torch.arange(T)[None, :]
    allowed = torch.ones(T, T, dtype=torch.bool)
    if c["causal"]:
        allowed &= k_pos <= q_pos
    if c.get("window"):                  # transformers' sliding window: q - W < k
        allowed &= k_pos > q_pos - c["window"]
    bias = torch.zeros(T, T, dtype=torch.float64).masked_fill(~allowed, float("-inf"))
    for i in range(c["L"]):
        p = f"layers.{i}."
        a = p + "self_attn."

        def proj(name, heads):
            y = h @ w[a + f"{name}_proj.weight"].T
            if c["bias"]:
                y = y + w[a + f"{name}_proj.bias"]
            return y.view(T, heads, D).transpose(0, 1)

        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q, k, v = proj("q", H), proj("k", K), proj("v", K)
        if c.get("qk_norm"):                                      # Qwen3's q_norm and k_norm
            q = rms_norm(q, w[a + "q_norm.weight"], eps)
            k = rms_norm(k, w[a + "k_norm.weight"], eps)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // K, dim=0)                                # repeat_kv
        v = v.repeat_interleave(H // K, dim=0)
        scores = q @ k.transpose(1, 2) * D ** -0.5 + bias
        ctx = (torch.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(T, H * D)
        x = x + ctx @ w[a + "o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        mlp = (torch.nn.functional.silu(h @ w[p + "mlp.gate_proj.weight"].T)
               * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
        x = x + mlp
    return rms_norm(x, w["norm.weight"], eps)


def bpe_merges(words, wanted, joinable=lambda a, b: True):
    """BPE training on `words` ({tuple of pieces: count}): the most frequent adjacent pair that
    `joinable` allows merged, ties to the first in sorted order, until `wanted` merges or no pair
    occurs twice. Returns the merges in order."""
    merges = []
    while len(merges) < wanted:
        pairs = {}
        for word, n in words.items():
            for a, b in zip(word, word[1:]):
                if joinable(a, b):
                    pairs[(a, b)] = pairs.get((a, b), 0) + n
        if not pairs:
            break
        best = max(sorted(pairs), key=lambda p: pairs[p])
        if pairs[best] < 2:
            break
        merges.append(best)
        merged = {}
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        words = merged
    return merges
