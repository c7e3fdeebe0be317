#!/usr/bin/python3
"""Two random NomicBERT folders of nomic-embed-text-v2-moe's shapes for jobs/benchmarks/bench-moe:
12 post-norm layers of E 768, 12 heads, F 3072, rotary positions, GELU, every bias; `moe/` with
every second layer (i % 2 == 1) a mixture of 8 experts, top 2 (MegaBlocks' router, w1, w2 and
bias, as the Hub stores them), and `dense/` with a plain fc1/fc2 feed-forward in every layer (the
same model without experts). F32 as the Hub's. Both take all-MiniLM-L6-v2's WordPiece tokenizer
(../shared/models; the real folder's is XLM-R's 250k Unigram, which changes the tokens, not the
per-token cost), mean pooling, Normalize and the golden case's prompts
(src/test/resources/nomic-cases/nomic-moe).

Usage: /usr/bin/python3 jobs/benchmarks/make_moe_bench_models.py OUT
"""
import json, os, shutil, sys
import numpy as np
import torch

from safetensors_torch import write_random_safetensors

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "..", "src", "test", "resources", "nomic-cases", "nomic-moe")
MINILM = os.path.join(HERE, "..", "..", "..", "shared", "models", "all-MiniLM-L6-v2")
L, E, H, F, X, K = 12, 768, 12, 3072, 8, 2


def write(folder, moe):
    os.makedirs(folder, exist_ok=True)
    for name in ("modules.json", "1_Pooling", "config_sentence_transformers.json"):
        src = os.path.join(CASE, name)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(folder, name), dirs_exist_ok=True)
        else:
            shutil.copy(src, os.path.join(folder, name))
    shutil.copy(os.path.join(MINILM, "tokenizer.json"), os.path.join(folder, "tokenizer.json"))
    pooling = os.path.join(folder, "1_Pooling", "config.json")
    json.dump(dict(json.load(open(pooling)), word_embedding_dimension=E), open(pooling, "w"))
    vocab = json.load(open(os.path.join(MINILM, "config.json")))["vocab_size"]
    config = json.load(open(os.path.join(CASE, "config.json")))
    config.update(n_layer=L, n_embd=E, n_head=H, n_inner=F, num_experts=X, moe_top_k=K,
                  moe_every_n_layers=2 if moe else 0, vocab_size=vocab, n_positions=2048)
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    shapes = {"embeddings.word_embeddings.weight": (vocab, E),
              "embeddings.token_type_embeddings.weight": (1, E),
              "emb_ln.weight": (E,), "emb_ln.bias": (E,)}
    for i in range(L):
        p = f"encoder.layers.{i}."
        shapes.update({p + "attn.Wqkv.weight": (3 * E, E), p + "attn.Wqkv.bias": (3 * E,),
                       p + "attn.out_proj.weight": (E, E), p + "attn.out_proj.bias": (E,)})
        if moe and i % 2 == 1:
            shapes.update({p + "mlp.router.layer.weight": (X, E),
                           p + "mlp.experts.mlp.w1": (X * F, E),
                           p + "mlp.experts.mlp.w2": (X * F, E), p + "mlp.experts.bias": (E,)})
        else:
            shapes.update({p + "mlp.fc1.weight": (F, E), p + "mlp.fc1.bias": (F,),
                           p + "mlp.fc2.weight": (E, F), p + "mlp.fc2.bias": (E,)})
        for n in ("norm1", "norm2"):
            shapes.update({p + n + ".weight": (E,), p + n + ".bias": (E,)})
    write_random_safetensors(os.path.join(folder, "model.safetensors"), shapes, "F32",
                             torch.Generator().manual_seed(11))
    print(f"{folder}: {'experts' if moe else 'dense'}, "
          f"{sum(int(np.prod(s)) for s in shapes.values()):,} parameters")


if __name__ == "__main__":
    write(os.path.join(sys.argv[1], "moe"), True)
    write(os.path.join(sys.argv[1], "dense"), False)
