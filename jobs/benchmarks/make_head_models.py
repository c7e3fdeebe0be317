#!/usr/bin/python3
"""Two model folders on all-MiniLM-L6-v2's weights for jobs/benchmarks/bench-enrich: a token
classifier (BertForTokenClassification, CoNLL's nine labels) and a SPLADE SparseEncoder
(BertForMaskedLM with MLMTransformer and SpladePooling), each a random head of the real shape
in a second shard beside the model's own file (linked, not copied), so they cost what a trained
head of that shape costs.
  /usr/bin/python3 jobs/benchmarks/make_head_models.py MINILM_DIR OUT_DIR
"""
import json, os, shutil, struct, sys
import numpy as np

LABELS = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"]


def write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def names(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return [k for k in json.loads(f.read(n)) if k != "__metadata__"]


def folder(minilm, out, name, architecture, head, extra_config):
    path = os.path.join(out, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    os.symlink(os.path.join(minilm, "model.safetensors"),
               os.path.join(path, "model-00001-of-00002.safetensors"))
    os.symlink(os.path.join(minilm, "tokenizer.json"), os.path.join(path, "tokenizer.json"))
    write_safetensors(os.path.join(path, "model-00002-of-00002.safetensors"), head)
    weight_map = {k: "model-00001-of-00002.safetensors"
                  for k in names(os.path.join(minilm, "model.safetensors"))}
    weight_map.update({k: "model-00002-of-00002.safetensors" for k in head})
    json.dump({"metadata": {}, "weight_map": weight_map},
              open(os.path.join(path, "model.safetensors.index.json"), "w"), indent=2)
    config = json.load(open(os.path.join(minilm, "config.json")))
    config.update({"architectures": [architecture]}, **extra_config)
    json.dump(config, open(os.path.join(path, "config.json"), "w"), indent=2)
    return path


def main(minilm, out):
    rng = np.random.default_rng(20261126)
    config = json.load(open(os.path.join(minilm, "config.json")))
    e, v = config["hidden_size"], config["vocab_size"]
    folder(minilm, out, "ner", "BertForTokenClassification",
           {"classifier.weight": rng.normal(0, 0.5, (len(LABELS), e)),
            "classifier.bias": np.zeros(len(LABELS))},
           {"id2label": {str(i): l for i, l in enumerate(LABELS)},
            "label2id": {l: i for i, l in enumerate(LABELS)}})
    p = "cls.predictions."
    splade = folder(minilm, out, "splade", "BertForMaskedLM",
                    {p + "transform.dense.weight": rng.normal(0, 1 / np.sqrt(e), (e, e)),
                     p + "transform.dense.bias": np.zeros(e),
                     p + "transform.LayerNorm.weight": np.ones(e),
                     p + "transform.LayerNorm.bias": np.zeros(e),
                     p + "bias": np.where(rng.random(v) < 0.01, 0.5, -6.0)},
                    {"tie_word_embeddings": True})
    json.dump([{"idx": 0, "name": "0", "path": "",
                "type": "sentence_transformers.sparse_encoder.models.MLMTransformer"},
               {"idx": 1, "name": "1", "path": "1_SpladePooling",
                "type": "sentence_transformers.sparse_encoder.models.SpladePooling"}],
              open(os.path.join(splade, "modules.json"), "w"), indent=2)
    os.makedirs(os.path.join(splade, "1_SpladePooling"))
    json.dump({"pooling_strategy": "max", "activation_function": "relu",
               "word_embedding_dimension": v},
              open(os.path.join(splade, "1_SpladePooling", "config.json"), "w"), indent=2)
    shutil.copy(os.path.join(minilm, "sentence_bert_config.json"), splade)


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
