#!/usr/bin/python3
"""A random folder of bge-m3's shape for jobs/benchmarks/bench-m3: XLMRobertaModel with 24 layers
of 1,024 (16 heads, feed-forward 4,096), F16 (half the disk; the job computes in float32 as it
does for bge-m3's F32 file), bge-m3's sentence-transformers pipeline (CLS pooling, Normalize),
and its two heads beside the checkpoint, torch.save'd state dicts: colbert_linear.pt (Linear(1024,
1024)) and sparse_linear.pt (Linear(1024, 1)). The tokenizer is MINILM_DIR's (WordPiece, 30,522
pieces: bge-m3's own is not here; the cost that matters is the layers'), its specials named in
special_tokens_map.json.
  /usr/bin/python3 jobs/benchmarks/make_m3_bench_model.py MINILM_DIR OUT_DIR
"""
import json, os, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "samples"))
from make_head_models import write_safetensors  # noqa: E402
from make_bert_cases import write_sentence_transformers  # noqa: E402

L, E, H, F, P = 24, 1024, 16, 4096, 8194


def main(minilm, out):
    os.makedirs(out, exist_ok=True)
    if os.path.exists(os.path.join(out, "model.safetensors")):
        return
    rng = np.random.default_rng(20261127)
    V = json.load(open(os.path.join(minilm, "config.json")))["vocab_size"]
    normal = lambda *shape, std: rng.standard_normal(shape, dtype=np.float32) * std
    t = {"embeddings.word_embeddings.weight": normal(V, E, std=0.5),
         "embeddings.position_embeddings.weight": normal(P, E, std=0.3),
         "embeddings.token_type_embeddings.weight": normal(1, E, std=0.3),
         "embeddings.LayerNorm.weight": 1 + normal(E, std=0.1),
         "embeddings.LayerNorm.bias": normal(E, std=0.1)}
    for i in range(L):
        p = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            t[p + f"attention.self.{n}.weight"] = normal(E, E, std=1 / np.sqrt(E))
            t[p + f"attention.self.{n}.bias"] = normal(E, std=0.1)
        for n, rows, cols in (("attention.output.dense", E, E), ("intermediate.dense", F, E),
                              ("output.dense", E, F)):
            t[p + n + ".weight"] = normal(rows, cols, std=1 / np.sqrt(cols))
            t[p + n + ".bias"] = normal(rows, std=0.1)
        for n in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + n + ".weight"] = 1 + normal(E, std=0.1)
            t[p + n + ".bias"] = normal(E, std=0.1)
    write_safetensors(os.path.join(out, "model.safetensors"), t, "F16")
    json.dump({"architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta",
               "hidden_size": E, "num_hidden_layers": L, "num_attention_heads": H,
               "intermediate_size": F, "hidden_act": "gelu", "layer_norm_eps": 1e-5,
               "max_position_embeddings": P, "type_vocab_size": 1, "vocab_size": V,
               "pad_token_id": 1, "position_embedding_type": "absolute"},
              open(os.path.join(out, "config.json"), "w"), indent=2)
    os.symlink(os.path.join(minilm, "tokenizer.json"), os.path.join(out, "tokenizer.json"))
    json.dump({"cls_token": "[CLS]", "eos_token": "[SEP]", "pad_token": "[PAD]",
               "unk_token": "[UNK]"}, open(os.path.join(out, "special_tokens_map.json"), "w"))
    write_sentence_transformers(out, E, 8192)            # Transformer, Pooling, Normalize
    pooling = os.path.join(out, "1_Pooling", "config.json")
    json.dump(dict(json.load(open(pooling)), pooling_mode_cls_token=True,
                   pooling_mode_mean_tokens=False), open(pooling, "w"), indent=2)
    torch.manual_seed(20261127)
    torch.save(torch.nn.Linear(E, E).state_dict(), os.path.join(out, "colbert_linear.pt"))
    torch.save(torch.nn.Linear(E, 1).state_dict(), os.path.join(out, "sparse_linear.pt"))
    print(out, "written")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
