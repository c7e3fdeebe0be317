#!/usr/bin/python3
"""A model2vec folder of potion-base-8M's shape for jobs/benchmarks/bench-static: the tokenizer of
../shared/models/all-MiniLM-L6-v2 (bert-base-uncased's WordPiece, 30,522 tokens, as potion-base
distils from), a random F32 `embeddings` table of 256 values a token, config.json with
`normalize: true`, and the modules.json model2vec writes. Random values: the benchmark times the
reading, not the vectors.

Usage: /usr/bin/python3 jobs/benchmarks/make_static_bench_model.py OUT_DIR
"""
import json, os, shutil, struct, sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MINILM = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "models",
                                       "all-MiniLM-L6-v2"))
WIDTH = 256


def main(out):
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(MINILM, "tokenizer.json"), os.path.join(out, "tokenizer.json"))
    tokenizer = json.load(open(os.path.join(out, "tokenizer.json"), encoding="utf-8"))
    tokens = len(set(tokenizer["model"]["vocab"].values())
                 | {t["id"] for t in tokenizer["added_tokens"]})
    table = np.random.default_rng(8).normal(0, 0.1, size=(tokens, WIDTH)).astype(np.float32)
    header = json.dumps({"embeddings": {"dtype": "F32", "shape": [tokens, WIDTH],
                                        "data_offsets": [0, table.nbytes]}}).encode()
    header += b" " * ((8 - len(header) % 8) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + table.tobytes())
    json.dump({"model_type": "model2vec", "architectures": ["StaticModel"],
               "tokenizer_name": "bert-base-uncased", "apply_pca": WIDTH, "apply_zipf": True,
               "hidden_dim": WIDTH, "seq_length": 1000000, "normalize": True,
               "embedding_dtype": "float32"}, open(os.path.join(out, "config.json"), "w"),
              indent=4)
    json.dump([{"idx": 0, "name": "0", "path": ".",
                "type": "sentence_transformers.models.StaticEmbedding"},
               {"idx": 1, "name": "1", "path": "1_Normalize",
                "type": "sentence_transformers.models.Normalize"}],
              open(os.path.join(out, "modules.json"), "w"), indent=4)
    os.makedirs(os.path.join(out, "1_Normalize"), exist_ok=True)
    print(f"{out}: {tokens} tokens x {WIDTH}")


if __name__ == "__main__":
    main(sys.argv[1])
