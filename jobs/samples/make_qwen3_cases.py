#!/usr/bin/python3
"""Golden Qwen3 folders: random checkpoints saved as Qwen3-Embedding's are (BF16, its config.json
keys, Qwen3Model tensor names), with a byte-level BPE tokenizer.json of Qwen's form (NFC, the
Split of Qwen2's pattern then ByteLevel without its regex, `<|endoftext|>` appended by a
TemplateProcessing post-processor, `<|endoftext|>`, `<|im_start|>`, `<|im_end|>` after the
merges), trained on the texts (jobs/samples/make_modernbert_cases.py's trainer):

  - qwen3-embedding: Qwen3Model, whole, BF16, grouped-query attention (4 heads, 2 KV heads) of
    head_dim 16 in a width of 32, Qwen3-Embedding's sentence-transformers files (last-token
    pooling, Normalize) and prompts; texts.json holds the texts with the "query" instruction
    put before them;
  - qwen3-causal-lm: Qwen3ForCausalLM, `model.` prefix with lm_head, BF16, no head_dim key (so
    Qwen3Config's default 128, wider than E / H = 8), 1 KV head.

The reference outputs come from the float64 port of the Llama-shaped decoders (family_cases.decoder)
as modeling_qwen3.py computes: embed_tokens; per layer
RMSNorm, q/k/v projections, q_norm and k_norm per head, rotary (rotate_half, rope_theta),
repeat_kv, causal softmax of q·kᵀ·D^-0.5, o_proj, residual, RMSNorm, down(silu(gate) · up),
residual; final norm; the last token's state, normalized.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_qwen3_cases.py src/test/resources/qwen3-cases
"""
import json, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import case_folder, decoder, random_decoder, store, write_texts  # noqa: E402
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402
from make_modernbert_cases import train_bpe  # noqa: E402

MAX_TOKENS = 160
HEAD_DIM_DEFAULT = 128  # Qwen3Config's head_dim when config.json has no such key
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+"
                 r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
PROMPTS = {"query": "Instruct: Given a web search query, retrieve relevant passages that "
                    "answer the query\nQuery:", "document": ""}


def tokenizer_json():
    pieces, merges = train_bpe(400)
    ids = {t: i for i, t in enumerate(pieces)}
    for s in SPECIALS:
        ids[s] = len(ids)
    eos = {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": ids[s], "content": s, "single_word": False,
                              "lstrip": False, "rstrip": False, "normalized": False,
                              "special": True} for s in SPECIALS],
            "normalizer": {"type": "NFC"},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": QWEN2_PATTERN}, "behavior": "Isolated",
                 "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                 "use_regex": False}]},
            "post_processor": {"type": "TemplateProcessing",
                               "single": [{"Sequence": {"id": "A", "type_id": 0}}, eos],
                               "pair": [{"Sequence": {"id": "A", "type_id": 0}}, eos,
                                        {"Sequence": {"id": "B", "type_id": 1}},
                                        {"SpecialToken": {"id": "<|endoftext|>",
                                                          "type_id": 1}}],
                               "special_tokens": {"<|endoftext|>": {
                                   "id": "<|endoftext|>", "ids": [ids["<|endoftext|>"]],
                                   "tokens": ["<|endoftext|>"]}}},
            "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                        "use_regex": False},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": "", "end_of_word_suffix": "",
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": {t: i for t, i in ids.items() if t not in SPECIALS},
                      "merges": [f"{a} {b}" for a, b in merges]}}, len(ids)


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, c["name"])
    tokenizer = os.path.join(folder, "tokenizer.json")
    content, size = tokenizer_json()
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(c, V=size)
    port = dict(c, D=c["D"] or HEAD_DIM_DEFAULT, eps=1e-6, causal=True, bias=False, qk_norm=True)
    values = random_decoder(port, rng)
    if c["lm"]:
        tensors, w = store(values, "BF16", "model.")
        tensors.update(store({"lm_head.weight": values["embed_tokens.weight"]}, "BF16")[0])
    else:
        tensors, w = store(values, "BF16")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False,
              "attention_dropout": 0.0, "bos_token_id": size - 3, "eos_token_id": size - 3,
              "hidden_act": "silu", "hidden_size": c["E"], "initializer_range": 0.02,
              "intermediate_size": c["F"], "max_position_embeddings": 32768,
              "max_window_layers": c["L"], "model_type": "qwen3",
              "num_attention_heads": c["H"], "num_hidden_layers": c["L"],
              "num_key_value_heads": c["K"], "rms_norm_eps": 1e-06, "rope_scaling": None,
              "rope_theta": c["theta"], "sliding_window": None, "tie_word_embeddings": True,
              "torch_dtype": "bfloat16", "transformers_version": "4.51.3", "use_cache": True,
              "use_sliding_window": False, "vocab_size": size}
    if c["D"]:
        config["head_dim"] = c["D"]
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    prompt = ""
    if not c["lm"]:
        write_sentence_transformers(folder, c["E"], 8192)
        pooling = os.path.join(folder, "1_Pooling", "config.json")
        json.dump(dict(json.load(open(pooling)), pooling_mode_mean_tokens=False,
                       pooling_mode_lasttoken=True, include_prompt=True),
                  open(pooling, "w"), indent=2)
        json.dump({"prompts": PROMPTS, "default_prompt_name": None,
                   "similarity_fn_name": "cosine"},
                  open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)
        prompt = PROMPTS["query"]
    rows = write_texts(folder, tokenizer, MAX_TOKENS, lambda ids, types: decoder(port, w, ids),
                       "last", prompt)
    D = c['D'] or HEAD_DIM_DEFAULT
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} KV={c['K']} D={D}"
          f", vocabulary {size}, {len(rows)} texts, prompt {prompt!r}")


CASES = [
    dict(name="qwen3-embedding", L=2, E=32, H=4, K=2, D=16, F=48, theta=1000000.0, lm=False),
    dict(name="qwen3-causal-lm", L=2, E=32, H=4, K=1, D=0, F=64, theta=10000.0, lm=True),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261130 + n)
