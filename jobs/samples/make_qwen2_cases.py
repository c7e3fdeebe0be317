#!/usr/bin/python3
"""Golden Qwen2 folders: random checkpoints saved as gte-Qwen2-1.5B/7B-instruct's are, with
Qwen's byte-level BPE tokenizer.json (jobs/samples/make_qwen3_cases.py's, but its post-processor
ByteLevel, as Qwen2's tokenizer.json has it: no <|endoftext|> appended) and a
tokenizer_config.json that says add_eos_token, as gte-Qwen2's custom tokenization_qwen classes
read it:

  - gte-qwen2: config.json with gte-Qwen2's keys (`"is_causal": false`, its auto_map naming
    `modeling_qwen.Qwen2Model`), F32 weights without a prefix in two shards and an index, 4 heads
    on 2 KV heads of E / H = 8 values, biases on q, k and v; sentence-transformers files with
    last-token pooling and Normalize, the instruct prompt under "query";
  - qwen2-causal-lm: Qwen2ForCausalLM without auto_map or is_causal (so causal), BF16 under
    `model.` with its lm_head, one KV head, the same tokenizer_config.json, no
    sentence-transformers files.

The reference ids come from Hugging Face's Rust tokenizer run on the tokenizer.json that
gte-Qwen2's tokenizer class builds (its update_post_processor: "$A:0 <|endoftext|>:0"), the
outputs from a float64 port of modeling_qwen2.py: embed_tokens; per layer RMSNorm, q/k/v
projections with their biases, rotary (rotate_half, rope_theta), repeat_kv, softmax of
q·kᵀ·D^-0.5 (causal, or over every key for gte-Qwen2's bidirectional model), o_proj, residual,
RMSNorm, down(silu(gate) · up), residual; final norm; the last token's state, normalized.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_qwen2_cases.py src/test/resources/qwen2-cases
"""
import json, os, sys, tempfile
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (case_folder, decoder, random_decoder, store,  # noqa: E402
                          write_last_token_pipeline, write_shards, write_texts)
from make_bert_cases import write_safetensors  # noqa: E402
from make_qwen3_cases import tokenizer_json  # noqa: E402

MAX_TOKENS = 160
PROMPTS = {"query": "Instruct: Given a web search query, retrieve relevant passages that "
                    "answer the query\nQuery: ", "document": ""}
EOS = "<|endoftext|>"


def with_template(tokenizer, single, special):
    """A copy of tokenizer.json whose post-processor is the TemplateProcessing a tokenizer class
    builds (transformers' update_post_processor): `single` lists "$A" and special tokens."""
    content = json.load(open(tokenizer, encoding="utf-8"))
    ids = {t["content"]: t["id"] for t in content["added_tokens"]}
    piece = lambda s, type_id: ({"Sequence": {"id": s[1:], "type_id": type_id}} if s[0] == "$"
                                else {"SpecialToken": {"id": s, "type_id": type_id}})
    content["post_processor"] = {
        "type": "TemplateProcessing", "single": [piece(s, 0) for s in single],
        "pair": [piece(s, 0) for s in single] + [piece(s.replace("$A", "$B"), 1) for s in single],
        "special_tokens": {s: {"id": s, "ids": [ids[s]], "tokens": [s]} for s in special}}
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8")
    json.dump(content, f, ensure_ascii=False)
    f.close()
    return f.name


def write_gte_qwen2_tokenizer_config(folder):
    """gte-Qwen2's tokenizer_config.json: its own tokenization_qwen classes, add_eos_token."""
    json.dump({"add_eos_token": True, "add_prefix_space": False,
               "auto_map": {"AutoTokenizer": ["tokenization_qwen.Qwen2Tokenizer",
                                              "tokenization_qwen.Qwen2TokenizerFast"]},
               "bos_token": None, "clean_up_tokenization_spaces": False,
               "eos_token": EOS, "errors": "replace", "model_max_length": 32768,
               "pad_token": EOS, "split_special_tokens": False,
               "tokenizer_class": "Qwen2Tokenizer", "unk_token": None},
              open(os.path.join(folder, "tokenizer_config.json"), "w"), indent=2)


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, c["name"])
    tokenizer = os.path.join(folder, "tokenizer.json")
    content, size = tokenizer_json()
    content["post_processor"] = {"type": "ByteLevel", "add_prefix_space": False,
                                 "trim_offsets": False, "use_regex": False}
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(c, V=size, eps=1e-6, bias=True)
    values = random_decoder(c, rng)
    if c["lm"]:
        tensors, w = store(values, "BF16", "model.")
        tensors.update(store({"lm_head.weight": rng.normal(0.0, 1.0, size=(size, c["E"]))},
                             "BF16")[0])
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    else:
        tensors, w = store(values, "F32")
        write_shards(folder, tensors)
    config = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0,
              "bos_token_id": size - 3, "eos_token_id": size - 3, "hidden_act": "silu",
              "hidden_size": c["E"], "initializer_range": 0.02, "intermediate_size": c["F"],
              "max_position_embeddings": 32768, "max_window_layers": c["L"],
              "model_type": "qwen2", "num_attention_heads": c["H"],
              "num_hidden_layers": c["L"], "num_key_value_heads": c["K"],
              "rms_norm_eps": 1e-06, "rope_theta": c["theta"], "sliding_window": 32768,
              "tie_word_embeddings": False, "torch_dtype": "bfloat16" if c["lm"] else "float32",
              "transformers_version": "4.41.2", "use_cache": True, "use_sliding_window": False,
              "vocab_size": size}
    prompt = ""
    write_gte_qwen2_tokenizer_config(folder)
    reference = with_template(tokenizer, ["$A", EOS], [EOS])
    if not c["lm"]:
        repo = "Alibaba-NLP/gte-Qwen2-7B-instruct--"
        config["auto_map"] = {"AutoModel": repo + "modeling_qwen.Qwen2Model",
                              "AutoModelForCausalLM": repo + "modeling_qwen.Qwen2ForCausalLM",
                              "AutoModelForSequenceClassification":
                                  repo + "modeling_qwen.Qwen2ForSequenceClassification"}
        config["is_causal"] = False
        write_last_token_pipeline(folder, c["E"], 8192, PROMPTS)
        prompt = PROMPTS["query"]
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    c = dict(c, causal=config.get("is_causal", True))
    rows = write_texts(folder, reference, MAX_TOKENS, lambda ids, types: decoder(c, w, ids),
                       "last", prompt)
    os.unlink(reference)
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} KV={c['K']} causal={c['causal']}"
          f", vocabulary {size}, {len(rows)} texts, prompt {prompt!r}")


CASES = [
    dict(name="gte-qwen2", L=2, E=32, H=4, K=2, F=48, theta=1000000.0, lm=False),
    dict(name="qwen2-causal-lm", L=2, E=32, H=4, K=1, F=64, theta=10000.0, lm=True),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261126 + n)
