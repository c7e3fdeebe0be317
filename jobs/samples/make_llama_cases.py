#!/usr/bin/python3
"""Golden Llama and EuroBERT folders: random checkpoints saved as the Hub saves them (their
config.json keys, tensor names, dtypes and prefixes), with a tokenizer.json of Llama 3's form:
byte-level BPE with no normalizer, the Split of Llama 3's pattern (digits three at a time,
`\\p{N}{1,3}`) then ByteLevel without its regex, `ignore_merges` (a word the vocabulary holds
whole is one token, whatever the merges build; a few whole words are added to show it), the
specials after the vocabulary and matched inside the text, and a TemplateProcessing that puts
`<|begin_of_text|>` first (EuroBERT's also `<|end_of_text|>` last):

  - nemotron-bidirectional: llama-nemotron-embed-1b-v2's form: `model_type: llama_bidirec`,
    `architectures: [LlamaBidirectionalModel]` with its auto_map, `pooling: avg`, BF16 in two
    shards with their index (as llama-embed-nemotron-8b is stored), LlamaModel tensor names (no
    prefix), grouped-query attention (4 heads, 2 KV heads),
    `rope_scaling` of type llama3 (a small original context, so that scaling moves most
    frequencies), sentence-transformers files with mean pooling and Normalize, and the prompts
    `query: ` / `passage: `; texts.json holds the texts as documents (the "passage: " prompt);
  - llama-causal-lm: LlamaForCausalLM under `model.` with lm_head, BF16, one KV head, head_dim
    16 (twice E / H), llama3 scaling; no sentence-transformers files (its last token, asked for);
  - eurobert-mlm: EuroBertForMaskedLM as EuroBERT-210m is saved: F32, `model.` and an untied
    lm_head.weight, EuroBertConfig's keys with its auto_map, rope_theta 250000; no
    sentence-transformers files (the job's mean pooling, as for any encoder without them);
  - eurobert-embedder: EuroBertModel (no prefix) with jina-embeddings-v5-text-nano's
    sentence-transformers files: last-token pooling with include_prompt false, Normalize, the
    prompts `Query: ` / `Document: `; texts.json holds the texts as queries.

Hugging Face's Rust tokenizer of npm's tokenizers 0.23 gives the reference ids (0.13 ignores
`ignore_merges`): each text whole, then cut as a truncating template does (the text's own
tokens cut, the specials kept). The outputs come from family_cases.decoder, the float64 port of
modeling_llama.py (and of modeling_eurobert.py, which is Llama's layer with is_causal False and a
padding-only mask): RMSNorm, q/k/v projections, rotary positions (rotate_half; llama3's
frequencies by transformers' _compute_llama3_parameters), repeat_kv, softmax of q·kᵀ·D^-0.5
(causal only for llama-causal-lm), o_proj, residual, RMSNorm, down(silu(gate) · up), residual;
final norm.

Usage (Debian's python3-torch; node with npm's tokenizers@0.23.2 in /tmp/tok23):
  /usr/bin/python3 jobs/samples/make_llama_cases.py src/test/resources/llama-cases
"""
import json, os, re, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (TEXTS, bpe_merges, case_folder, decoder, random_decoder, store,  # noqa
                          write_last_token_pipeline, write_shards, write_texts)
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402
from make_modernbert_cases import bytes_to_unicode  # noqa: E402
from make_xlmr_cases import reference_ids  # noqa: E402

MAX_TOKENS = 48
TOKENIZERS_023 = "/tmp/tok23/node_modules"
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}"
                  r"\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
            "<|reserved_special_token_1|>", "<|start_header_id|>", "<|end_header_id|>",
            "<|eot_id|>", "<|mask|>"]
WHOLE_WORDS = ["Ġneighbours", "Ġpositions", "Ġsnowman", "Ġsquares"]   # not built by the merges
LLAMA_TEXTS = TEXTS + [["digits", "Order 1234567 <|eot_id|> shipped 2026-11-28, then 42 more."]]
NEMOTRON_PROMPTS = {"query": "query: ", "passage": "passage: "}
JINA_PROMPTS = {"query": "Query: ", "document": "Document: "}
LLAMA3_SCALING = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 64, "rope_type": "llama3"}


def train_bpe(merges_wanted):
    """Byte-level BPE on the texts and prompts, words roughly as the pattern splits them,
    digits in threes counted twice (so that pieces of three digits are merged and the split
    into threes shows in the tokens)."""
    b2u = bytes_to_unicode()
    counts = {}
    prompts = [("p", p) for p in list(NEMOTRON_PROMPTS.values()) + list(JINA_PROMPTS.values())]
    for _, text in LLAMA_TEXTS + prompts:
        for word in re.findall(r" ?[^\W\d]+|\d{1,3}| ?[^\s\w]+|\s+", text):
            key = tuple(b2u[b] for b in word.encode("utf-8"))
            counts[key] = counts.get(key, 0) + (2 if word.isdigit() else 1)
    merges = bpe_merges(counts, merges_wanted)
    built = {a + b for a, b in merges}
    whole = [w for w in WHOLE_WORDS if w not in built]
    return [b2u[b] for b in sorted(b2u)] + sorted(built) + whole, merges


def tokenizer_json(eos, ignore_merges=True):
    pieces, merges = train_bpe(400)
    ids = {t: i for i, t in enumerate(dict.fromkeys(pieces))}
    for s in SPECIALS:
        ids[s] = len(ids)
    special = lambda t, y=0: {"SpecialToken": {"id": t, "type_id": y}}
    seq = lambda s, y: {"Sequence": {"id": s, "type_id": y}}
    bos, end = "<|begin_of_text|>", "<|end_of_text|>"
    single = [special(bos), seq("A", 0)] + ([special(end)] if eos else [])
    pair = single + [special(bos, 1), seq("B", 1)] + ([special(end, 1)] if eos else [])
    used = [bos, end] if eos else [bos]
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": ids[s], "content": s, "single_word": False,
                              "lstrip": False, "rstrip": False, "normalized": False,
                              "special": True} for s in SPECIALS],
            "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN}, "behavior": "Isolated",
                 "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                 "use_regex": False}]},
            "post_processor": {"type": "Sequence", "processors": [
                {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                 "use_regex": True},
                {"type": "TemplateProcessing", "single": single, "pair": pair,
                 "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]}
                                    for t in used}}]},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                        "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": ignore_merges,
                      "vocab": {t: i for t, i in ids.items() if t not in SPECIALS},
                      "merges": [f"{a} {b}" for a, b in merges]}}, len(ids)


def cut_ids(eos):
    """reference_ids by tokenizers 0.23 on whole texts, then cut to max_tokens as truncation
    cuts a template's sequence: its own tokens, never the specials around them."""
    def ids(tokenizer, rows, max_tokens, strip=False):
        os.environ["NODE_PATH"] = TOKENIZERS_023
        out = reference_ids(tokenizer, rows, 100_000, strip)
        for row in out:
            row["full_length"] = len(row["input_ids"])
            if len(row["input_ids"]) > max_tokens:
                keep = max_tokens - (1 if eos else 0)
                for k in ("input_ids", "token_type_ids", "tokens"):
                    row[k] = row[k][:keep] + (row[k][-1:] if eos else [])
        return out
    return ids


def differs_without_ignore_merges(folder, eos):
    """Whether ignore_merges changes some text's tokens (it must, or the case shows nothing)."""
    plain = os.path.join(folder, "plain-merges.json")
    json.dump(tokenizer_json(eos, ignore_merges=False)[0], open(plain, "w"), ensure_ascii=False)
    rows = [{"id": i, "a": t} for i, t in LLAMA_TEXTS]
    a = cut_ids(eos)(os.path.join(folder, "tokenizer.json"), rows, 100_000)
    b = cut_ids(eos)(plain, rows, 100_000)
    os.unlink(plain)
    return any(x["input_ids"] != y["input_ids"] for x, y in zip(a, b))


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, c["name"])
    eurobert = c["name"].startswith("eurobert")
    content, size = tokenizer_json(eos=eurobert)
    json.dump(content, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"),
              ensure_ascii=False)
    assert differs_without_ignore_merges(folder, eurobert), "ignore_merges changes nothing"
    bos, eos = size - len(SPECIALS), size - len(SPECIALS) + 1
    c = dict(c, V=size)
    port = dict(c, eps=1e-5, causal=c["causal"], bias=False, qk_norm=False,
                llama3=c.get("scaling") and {k: v for k, v in c["scaling"].items()
                                              if k != "rope_type"})
    values = random_decoder(port, rng)
    if c["prefix"]:
        tensors, w = store(values, c["dtype"], "model.")
        head = values["embed_tokens.weight"] if not eurobert else rng.normal(
            0.0, 1.0, size=(size, c["E"]))
        tensors.update(store({"lm_head.weight": head}, c["dtype"])[0])
    else:
        tensors, w = store(values, c["dtype"])
    if c.get("shards"):
        write_shards(folder, tensors)
    else:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"architectures": [c["class"]], "attention_bias": False, "attention_dropout": 0.0,
              "bos_token_id": bos, "eos_token_id": eos, "hidden_act": "silu",
              "hidden_size": c["E"], "initializer_range": 0.02, "intermediate_size": c["F"],
              "max_position_embeddings": 8192 if eurobert else 131072, "mlp_bias": False,
              "model_type": c["type"], "num_attention_heads": c["H"],
              "num_hidden_layers": c["L"], "num_key_value_heads": c["K"],
              "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": c.get("scaling"),
              "rope_theta": c["theta"], "tie_word_embeddings": not eurobert,
              "torch_dtype": {"BF16": "bfloat16", "F32": "float32"}[c["dtype"]],
              "transformers_version": "4.47.1", "use_cache": not eurobert, "vocab_size": size}
    if c.get("D"):
        config["head_dim"] = c["D"]
    if c["type"] == "llama_bidirec":
        config.update(pooling="avg", temperature=1.0, auto_map={
            "AutoConfig": "llama_bidirectional_model.LlamaBidirectionalConfig",
            "AutoModel": "llama_bidirectional_model.LlamaBidirectionalModel"})
    if eurobert:
        config.update(pad_token_id=eos, mask_token_id=size - 1, clf_pooling="late", auto_map={
            "AutoConfig": "configuration_eurobert.EuroBertConfig",
            "AutoModel": "modeling_eurobert.EuroBertModel",
            "AutoModelForMaskedLM": "modeling_eurobert.EuroBertForMaskedLM",
            "AutoModelForSequenceClassification":
                "modeling_eurobert.EuroBertForSequenceClassification"})
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    prompt, pooling = "", c["pooling"]
    if c.get("prompts"):
        if pooling == "last":
            write_last_token_pipeline(folder, c["E"], 8192, c["prompts"])
            p = os.path.join(folder, "1_Pooling", "config.json")
            json.dump(dict(json.load(open(p)), include_prompt=False), open(p, "w"), indent=2)
        else:
            write_sentence_transformers(folder, c["E"], 8192)
            json.dump({"prompts": c["prompts"], "default_prompt_name": None,
                       "similarity_fn_name": "cosine"},
                      open(os.path.join(folder, "config_sentence_transformers.json"), "w"),
                      indent=2)
        prompt = c["prompts"][c["prompt"]]
    rows = write_texts(folder, os.path.join(folder, "tokenizer.json"), MAX_TOKENS,
                       lambda ids, types: decoder(port, w, ids), pooling, prompt,
                       ids=cut_ids(eurobert), texts=LLAMA_TEXTS)
    digits = next(r for r in rows if r["id"] == "digits")["tokens"]
    assert "123" in digits and "<|eot_id|>" in digits, digits
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} KV={c['K']} D={c.get('D') or 'E/H'}, "
          f"vocabulary {size}, {len(rows)} texts, prompt {prompt!r}, digits {digits}")


CASES = [
    dict(name="nemotron-bidirectional", type="llama_bidirec",
         L=2, E=32, H=4, K=2, F=64, theta=500000.0, dtype="BF16", prefix=False, causal=False,
         scaling=LLAMA3_SCALING, pooling="mean", prompts=NEMOTRON_PROMPTS, prompt="passage",
         shards=True),
    dict(name="llama-causal-lm", type="llama", L=2, E=32, H=4, K=1, D=16, F=48,
         theta=500000.0, dtype="BF16", prefix=True, causal=True, scaling=LLAMA3_SCALING,
         pooling="last"),
    dict(name="eurobert-mlm", type="eurobert", L=2, E=32, H=4, K=4, F=64, theta=250000.0,
         dtype="F32", prefix=True, causal=False, pooling="mean"),
    dict(name="eurobert-embedder", type="eurobert", L=2, E=32, H=4, K=2, F=48, theta=250000.0,
         dtype="F32", prefix=False, causal=False, pooling="last", prompts=JINA_PROMPTS,
         prompt="query"),
]
CLASSES = {"nemotron-bidirectional": "LlamaBidirectionalModel",
           "llama-causal-lm": "LlamaForCausalLM", "eurobert-mlm": "EuroBertForMaskedLM",
           "eurobert-embedder": "EuroBertModel"}

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(dict(case, **{"class": CLASSES[case["name"]]}), out, 20261128 + n)
