#!/usr/bin/python3
"""A golden pplx-embed-v1 folder (perplexity-ai/pplx-embed-v1-0.6b's form): a random BF16
checkpoint of Qwen3Model's tensor names under `model_type: bidirectional_pplx_qwen3` with
`use_bidirectional_attention: true`, an auto_map to its own code (a Qwen3Model subclass that sets
is_causal False on every layer and masks only padding), head_dim 16 where hidden_size /
num_attention_heads is 8, sentence-transformers files with mean pooling and no Normalize, and a
tokenizer of Qwen's form that appends nothing (its post-processor is ByteLevel alone, so a text
with no token stays empty and the job sets it aside; the empty text is left out of texts.json).

The reference outputs come from family_cases.decoder, the float64 port of modeling_qwen3.py
(q_norm and k_norm before rotary positions) with no causal mask; pooled vectors are the mean
of every token's state, written normalized (the test also checks the job's norm against the mean
of the reference states).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_pplx_cases.py src/test/resources/qwen3-cases
"""
import json, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import TEXTS, case_folder, decoder, random_decoder, store, write_texts  # noqa
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402
from make_qwen3_cases import tokenizer_json  # noqa: E402

MAX_TOKENS = 64


def main(out):
    rng = np.random.default_rng(20261128)
    folder = case_folder(out, "pplx-embed")
    content, size = tokenizer_json()
    content["post_processor"] = {"type": "ByteLevel", "add_prefix_space": False,
                                 "trim_offsets": False, "use_regex": False}
    tokenizer = os.path.join(folder, "tokenizer.json")
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(L=2, E=32, H=4, K=2, D=16, F=48, V=size, theta=1000000.0, eps=1e-6, causal=False,
             bias=False, qk_norm=True)
    tensors, w = store(random_decoder(c, rng), "BF16")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"architectures": ["PPLXQwen3Model"], "attention_bias": False,
              "attention_dropout": 0.0,
              "auto_map": {"AutoConfig": "configuration.PPLXQwen3Config",
                           "AutoModel": "modeling.PPLXQwen3Model"},
              "bos_token_id": size - 3, "eos_token_id": size - 3, "head_dim": c["D"],
              "hidden_act": "silu", "hidden_size": c["E"], "initializer_range": 0.02,
              "intermediate_size": c["F"], "max_position_embeddings": 32768,
              "max_window_layers": c["L"], "model_type": "bidirectional_pplx_qwen3",
              "num_attention_heads": c["H"], "num_hidden_layers": c["L"],
              "num_key_value_heads": c["K"], "rms_norm_eps": 1e-06, "rope_scaling": None,
              "rope_theta": c["theta"], "sliding_window": None, "tie_word_embeddings": True,
              "torch_dtype": "bfloat16", "transformers_version": "4.57.1",
              "use_bidirectional_attention": True, "use_cache": True,
              "use_sliding_window": False, "vocab_size": size}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    write_sentence_transformers(folder, c["E"], 32768)
    modules = json.load(open(os.path.join(folder, "modules.json")))
    json.dump([m for m in modules if not m["type"].endswith("Normalize")],
              open(os.path.join(folder, "modules.json"), "w"), indent=2)
    texts = [t for t in TEXTS if t[1].strip()]
    rows = write_texts(folder, tokenizer, MAX_TOKENS, lambda ids, types: decoder(c, w, ids),
                       "mean", texts=texts)
    print(f"{folder}: vocabulary {size}, {len(rows)} texts (the empty one left out)")


if __name__ == "__main__":
    main(sys.argv[1])
