#!/usr/bin/python3
"""A ModernBERT-base-shaped folder with seeded random weights, saved as Hugging Face saves
ModernBertModel (BF16, transformers 4.x config.json): 22 layers, E = 768, 12 heads, gated
F = 1,152, local window 128, every third layer global, 8,192 positions, vocabulary 50,368, with
the byte-level BPE tokenizer of jobs/samples/make_modernbert_cases.py and a sentence-transformers
pipeline (mean pooling, Normalize). For speed and memory benchmarks on long documents, where the
numbers, not the weights, matter.

Usage: /usr/bin/python3 jobs/samples/make_long_model.py DIR [--layers L]
"""
import argparse, json, os, sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_bert_cases import stored, write_safetensors, write_sentence_transformers  # noqa
from make_modernbert_cases import config_json, random_modernbert, tokenizer_json, train_bpe  # noqa

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--layers", type=int, default=22)
a = ap.parse_args()
os.makedirs(a.dir, exist_ok=True)
vocab, merges = train_bpe(400)
tokenizer, ids = tokenizer_json(vocab, merges, pair_merges=False)
json.dump(tokenizer, open(os.path.join(a.dir, "tokenizer.json"), "w"), ensure_ascii=False)
c = dict(architecture="ModernBertModel", L=a.layers, E=768, H=12, F=1152, V=50368, bias=False,
         act_name="gelu", eps=1e-5, local_attention=128, every=3, global_theta=160000.0,
         local_theta=10000.0, config_form="4.x")
config = config_json(c, 50368, ids)
config["max_position_embeddings"] = 8192
json.dump(config, open(os.path.join(a.dir, "config.json"), "w"), indent=2)
rng = np.random.default_rng(8192)
tensors = {}
for name, v in random_modernbert(c, rng).items():
    raw, _ = stored(v.astype(np.float32), "BF16")
    tensors[name] = ("BF16", v.shape, raw)
write_safetensors(os.path.join(a.dir, "model.safetensors"), tensors)
write_sentence_transformers(a.dir, 768, 8192)
print(f"{a.dir}: ModernBERT-base shapes, {a.layers} layers, BF16")
