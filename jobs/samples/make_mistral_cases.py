#!/usr/bin/python3
"""Golden Mistral folders: random checkpoints saved as e5-mistral-7b-instruct's are (F16, its
config.json keys, MistralModel tensor names, shards and an index), with a Llama-form tokenizer:
tokenizer.json as Mistral's (the Prepend("▁") and Replace(" ", "▁") normalizers, no
pre-tokenizer, BPE with byte fallback, `<unk>`, `<s>`, `</s>` then the 256 byte pieces, and a
TemplateProcessing that adds only `<s>`), and a tokenizer_config.json of class LlamaTokenizer
with add_bos_token and add_eos_token, as e5-mistral's:

  - e5-mistral: MistralModel, 4 heads on 2 KV heads, a sliding window of 6 keys (so that the
    texts' queries see only their window), sentence-transformers files with last-token pooling,
    Normalize and e5-mistral's prompts;
  - mistral-causal-lm: MistralForCausalLM under `model.` with lm_head, BF16, one KV head,
    `sliding_window` null (every earlier key), `head_dim` 16 (twice E / H), no
    tokenizer_config.json (so `<s>` only, as tokenizer.json says).

transformers 4.x builds `<s> A </s>` from e5-mistral's tokenizer_config.json (LlamaTokenizerFast's
update_post_processor); the reference ids come from Hugging Face's Rust tokenizer on that
template. The outputs come from jobs/samples/make_qwen2_cases.py's float64 port, which is
modeling_mistral.py's computation without biases: its mask lets query i see key j when
i − sliding_window < j ≤ i.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_mistral_cases.py src/test/resources/mistral-cases
"""
import json, os, re, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (TEXTS, bpe_merges, case_folder, decoder, random_decoder, store,  # noqa
                          write_last_token_pipeline, write_shards, write_texts)
from make_bert_cases import write_safetensors  # noqa: E402
from make_qwen2_cases import with_template  # noqa: E402

MAX_TOKENS = 96
PROMPTS = {"web_search_query": "Instruct: Given a web search query, retrieve relevant passages "
                               "that answer the query\nQuery: ",
           "sts_query": "Instruct: Retrieve semantically similar text.\nQuery: "}
SPECIALS = ["<unk>", "<s>", "</s>"]
BYTE_ONLY = {"\n", "é", "ü"}   # left to byte fallback, as Llama's vocabulary leaves newlines


def train_pieces(merges_wanted):
    """SentencePiece-style BPE on the texts and prompts: words are "▁"-led runs, the most
    frequent pair merged until none occurs twice; characters in BYTE_ONLY stay out."""
    counts = {}
    for text in [t for _, t in TEXTS] + list(PROMPTS.values()):
        for word in re.findall(r"▁*[^▁]+|▁+", "▁" + text.replace(" ", "▁")):
            counts[tuple(word)] = counts.get(tuple(word), 0) + 1
    chars = sorted({ch for w in counts for ch in w} - BYTE_ONLY)
    merges = bpe_merges(counts, merges_wanted,
                        lambda a, b: a not in BYTE_ONLY and b not in BYTE_ONLY)
    return list(chars) + [a + b for a, b in merges], merges


def tokenizer_json():
    pieces, merges = train_pieces(300)
    vocab = SPECIALS + [f"<0x{b:02X}>" for b in range(256)] + pieces
    ids = {t: i for i, t in enumerate(vocab)}
    bos = {"SpecialToken": {"id": "<s>", "type_id": 0}}
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": ids[s], "content": s, "single_word": False,
                              "lstrip": False, "rstrip": False, "normalized": False,
                              "special": True} for s in SPECIALS],
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": "▁"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
            "pre_tokenizer": None,
            "post_processor": {"type": "TemplateProcessing",
                               "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
                               "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}},
                                        {"SpecialToken": {"id": "<s>", "type_id": 1}},
                                        {"Sequence": {"id": "B", "type_id": 1}}],
                               "special_tokens": {"<s>": {"id": "<s>", "ids": [1],
                                                         "tokens": ["<s>"]}}},
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": True, "byte_fallback": True, "vocab": ids,
                      "merges": [f"{a} {b}" for a, b in merges]}}, len(vocab)


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, c["name"])
    tokenizer = os.path.join(folder, "tokenizer.json")
    content, size = tokenizer_json()
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False, indent=1)
    c = dict(c, V=size, eps=1e-5, bias=False, causal=True)
    values = random_decoder(c, rng)
    config = {"architectures": ["MistralModel"], "bos_token_id": 1, "eos_token_id": 2,
              "hidden_act": "silu", "hidden_size": c["E"], "initializer_range": 0.02,
              "intermediate_size": c["F"], "max_position_embeddings": 32768,
              "model_type": "mistral", "num_attention_heads": c["H"],
              "num_hidden_layers": c["L"], "num_key_value_heads": c["K"], "pad_token_id": 2,
              "rms_norm_eps": 1e-05, "rope_theta": c["theta"],
              "sliding_window": c["window"], "tie_word_embeddings": False,
              "torch_dtype": "float16", "transformers_version": "4.34.0", "use_cache": False,
              "vocab_size": size}
    prompt, reference = "", tokenizer
    if c["lm"]:
        config.update(architectures=["MistralForCausalLM"], torch_dtype="bfloat16",
                      head_dim=c["D"])
        tensors, w = store(values, "BF16", "model.")
        tensors.update(store({"lm_head.weight": rng.normal(0.0, 1.0, size=(size, c["E"]))},
                             "BF16")[0])
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    else:
        tensors, w = store(values, "F16")
        write_shards(folder, tensors)
        json.dump({"add_bos_token": True, "add_eos_token": True,
                   "bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": False,
                                 "normalized": False, "rstrip": False, "single_word": False},
                   "clean_up_tokenization_spaces": False, "eos_token": "</s>",
                   "legacy": True, "model_max_length": 1000000000000000019884624838656,
                   "pad_token": "</s>", "padding_side": "right", "sp_model_kwargs": {},
                   "spaces_between_special_tokens": False,
                   "tokenizer_class": "LlamaTokenizer", "unk_token": "<unk>",
                   "use_default_system_prompt": False},
                  open(os.path.join(folder, "tokenizer_config.json"), "w"), indent=2)
        write_last_token_pipeline(folder, c["E"], 4096, PROMPTS)
        prompt = PROMPTS["web_search_query"]
        reference = with_template(tokenizer, ["<s>", "$A", "</s>"], ["<s>", "</s>"])
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    rows = write_texts(folder, reference, MAX_TOKENS, lambda ids, types: decoder(c, w, ids),
                       "last", prompt)
    if reference != tokenizer:
        os.unlink(reference)
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} KV={c['K']} window={c['window']}"
          f", vocabulary {size}, {len(rows)} texts, prompt {prompt!r}, first ids "
          f"{rows[0]['tokens'][:3]} … {rows[0]['tokens'][-2:]}")


CASES = [
    dict(name="e5-mistral", L=2, E=32, H=4, K=2, F=48, theta=10000.0, window=6, lm=False),
    dict(name="mistral-causal-lm", L=2, E=32, H=4, K=1, D=16, F=64, theta=1000000.0,
         window=None, lm=True),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261127 + n)
