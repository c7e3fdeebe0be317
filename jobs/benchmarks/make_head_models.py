#!/usr/bin/python3
"""Two model folders on all-MiniLM-L6-v2's weights for jobs/benchmarks/bench-enrich: a token
classifier (BertForTokenClassification, CoNLL's nine labels) and a SPLADE SparseEncoder
(BertForMaskedLM with MLMTransformer and SpladePooling), each a random head of the real shape
in a second shard beside the model's own file (linked, not copied), so they cost what a trained
head of that shape costs. With --random-bert-base, the same on a random BERT-base (12 layers of
768, F16, the tokenizer of MINILM_DIR), with a plain sentence-transformers folder (mean pooling)
of it beside them: the shape of splade-v3 and bert-base-NER.
  /usr/bin/python3 jobs/benchmarks/make_head_models.py MINILM_DIR OUT_DIR [--random-bert-base]
"""
import json, os, shutil, struct, sys
import numpy as np

LABELS = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"]


def write_safetensors(path, tensors, dtype="F32"):
    header, blobs, off = {}, [], 0
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f4" if dtype == "F32" else "<f2").tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
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


def folder(base, tokenizer, out, name, architecture, head, extra_config):
    """A folder of the base model's weights (base: its folder, with model.safetensors and
    config.json) and a head in a second shard."""
    path = os.path.join(out, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    os.symlink(os.path.join(base, "model.safetensors"),
               os.path.join(path, "model-00001-of-00002.safetensors"))
    os.symlink(tokenizer, os.path.join(path, "tokenizer.json"))
    write_safetensors(os.path.join(path, "model-00002-of-00002.safetensors"), head)
    weight_map = {k: "model-00001-of-00002.safetensors"
                  for k in names(os.path.join(base, "model.safetensors"))}
    weight_map.update({k: "model-00002-of-00002.safetensors" for k in head})
    json.dump({"metadata": {}, "weight_map": weight_map},
              open(os.path.join(path, "model.safetensors.index.json"), "w"), indent=2)
    config = json.load(open(os.path.join(base, "config.json")))
    config.update({"architectures": [architecture]}, **extra_config)
    json.dump(config, open(os.path.join(path, "config.json"), "w"), indent=2)
    return path


def random_bert_base(minilm, out, rng):
    """plain/: a random BERT-base (F16) with MiniLM's tokenizer and a mean-pooling
    sentence-transformers pipeline; returns the folder."""
    path = os.path.join(out, "plain")
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    e, f, layers, v = 768, 3072, 12, 30522
    t = {"embeddings.word_embeddings.weight": rng.normal(0, 0.02, (v, e)),
         "embeddings.position_embeddings.weight": rng.normal(0, 0.02, (512, e)),
         "embeddings.token_type_embeddings.weight": rng.normal(0, 0.02, (2, e)),
         "embeddings.LayerNorm.weight": np.ones(e), "embeddings.LayerNorm.bias": np.zeros(e)}
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for name, shape in (("attention.self.query", (e, e)), ("attention.self.key", (e, e)),
                            ("attention.self.value", (e, e)), ("attention.output.dense", (e, e)),
                            ("intermediate.dense", (f, e)), ("output.dense", (e, f))):
            t[p + name + ".weight"] = rng.normal(0, 0.02, shape)
            t[p + name + ".bias"] = np.zeros(shape[0])
        for norm in ("attention.output.LayerNorm.", "output.LayerNorm."):
            t[p + norm + "weight"] = np.ones(e)
            t[p + norm + "bias"] = np.zeros(e)
    write_safetensors(os.path.join(path, "model.safetensors"), t, "F16")
    config = json.load(open(os.path.join(minilm, "config.json")))
    config.update(hidden_size=e, num_hidden_layers=layers, num_attention_heads=12,
                  intermediate_size=f)
    json.dump(config, open(os.path.join(path, "config.json"), "w"), indent=2)
    os.symlink(os.path.join(minilm, "tokenizer.json"), os.path.join(path, "tokenizer.json"))
    for name in ("modules.json", "sentence_bert_config.json"):
        shutil.copy(os.path.join(minilm, name), path)
    shutil.copytree(os.path.join(minilm, "1_Pooling"), os.path.join(path, "1_Pooling"))
    json.dump(dict(json.load(open(os.path.join(minilm, "1_Pooling", "config.json"))),
                   word_embedding_dimension=e),
              open(os.path.join(path, "1_Pooling", "config.json"), "w"), indent=2)
    return path


def main(minilm, out, bert_base):
    rng = np.random.default_rng(20261126)
    os.makedirs(out, exist_ok=True)
    base = random_bert_base(minilm, out, rng) if bert_base else minilm
    tokenizer = os.path.join(minilm, "tokenizer.json")
    config = json.load(open(os.path.join(base, "config.json")))
    e, v = config["hidden_size"], config["vocab_size"]
    folder(base, tokenizer, out, "ner", "BertForTokenClassification",
           {"classifier.weight": rng.normal(0, 0.5, (len(LABELS), e)),
            "classifier.bias": np.zeros(len(LABELS))},
           {"id2label": {str(i): l for i, l in enumerate(LABELS)},
            "label2id": {l: i for i, l in enumerate(LABELS)}})
    p = "cls.predictions."
    splade = folder(base, tokenizer, out, "splade", "BertForMaskedLM",
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
    main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]),
         "--random-bert-base" in sys.argv[3:])
