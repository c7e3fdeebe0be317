#!/usr/bin/python3
"""Golden cases for sequence-classification folders (issue 19, groundwork): random BERT
checkpoints saved as Hugging Face saves BertForSequenceClassification (the `bert.` prefix, the
pooler, `classifier.weight` / `classifier.bias`, config.json with `architectures`, `id2label`,
`problem_type`; a sentence-transformers CrossEncoder's activation in config.json), and what a
float64 PyTorch port gives for token-id sequences:
  pooled = tanh(W_p h_0 + b_p), logits = W_c pooled + b_c, scores as the pipeline applies them
  (the CrossEncoder's configured activation first; else sigmoid for one label or multi-label,
  softmax otherwise), label = id2label[argmax].

Each folder also gets pairs.json: the same outputs for the (query, passage) pairs of
src/test/resources/pairs/minilm-32.json, from their reference ids and token types.

Usage (needs Debian's python3-torch):
  /usr/bin/python3 jobs/samples/make_classifier_cases.py src/test/resources/classifier-cases
"""
import json, os, shutil, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bert_cases import bert, random_bert, stored, write_safetensors  # noqa: E402

CASES = [
    dict(name="sentiment-3-labels", L=2, E=32, H=4, F=64, act="gelu", eps=1e-12, P=128, S=2,
         dtype="F32", labels=["negative", "neutral", "positive"],
         problem_type="single_label_classification", activation=None),
    dict(name="cross-encoder-1-label", L=2, E=48, H=6, F=96, act="gelu", eps=1e-12, P=128, S=2,
         dtype="F16", labels=["LABEL_0"], problem_type=None,
         activation="torch.nn.modules.activation.Identity"),
]
LENGTHS = [2, 3, 5, 9, 17, 33, 64, 128]
PAIRS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "test",
                     "resources", "pairs", "minilm-32.json")


def scores(logits, c):
    if c["activation"] is not None:
        name = c["activation"].rsplit(".", 1)[1]
        return {"Identity": logits, "Sigmoid": torch.sigmoid(logits),
                "Softmax": torch.softmax(logits, -1)}[name]
    if c["problem_type"] == "multi_label_classification" or len(c["labels"]) == 1:
        return torch.sigmoid(logits)
    return torch.softmax(logits, -1)


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    values = random_bert(c, rng)
    n = len(c["labels"])
    # A pooler and classifier strong enough that the sequences do not all get one label.
    values["pooler.dense.weight"] = rng.normal(0.0, 2 / np.sqrt(c["E"]), size=(c["E"], c["E"]))
    values["classifier.weight"] = rng.normal(0.0, 1.0, size=(n, c["E"]))
    values["classifier.bias"] = rng.normal(0.0, 0.1, size=(n,))
    tensors, w = {}, {}
    for name, v in values.items():
        raw, back = stored(v, c["dtype"])
        stored_name = name if name.startswith("classifier.") else "bert." + name
        tensors[stored_name] = (c["dtype"], v.shape, raw)
        w[name] = back
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"architectures": ["BertForSequenceClassification"], "model_type": "bert",
              "hidden_size": c["E"], "num_hidden_layers": c["L"], "num_attention_heads": c["H"],
              "intermediate_size": c["F"], "hidden_act": c["act"], "layer_norm_eps": c["eps"],
              "max_position_embeddings": c["P"], "type_vocab_size": c["S"],
              "vocab_size": 30522, "pad_token_id": 0, "position_embedding_type": "absolute",
              "id2label": {str(i): l for i, l in enumerate(c["labels"])},
              "label2id": {l: i for i, l in enumerate(c["labels"])}}
    if c["problem_type"]:
        config["problem_type"] = c["problem_type"]
    if c["activation"]:
        config["sentence_transformers"] = {"activation_fn": c["activation"], "version": "4.1.0"}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    def head(rid, ids, types=None):
        h = bert(c, w, ids, types)
        pooled = torch.tanh(h[0] @ w["pooler.dense.weight"].T + w["pooler.dense.bias"])
        logits = pooled @ w["classifier.weight"].T + w["classifier.bias"]
        s = scores(logits, c)
        return {"id": rid, "input_ids": ids,
                "logits": [float(f"{v:.10g}") for v in logits.tolist()],
                "scores": [float(f"{v:.10g}") for v in s.tolist()],
                "label": c["labels"][int(torch.argmax(logits))]}

    rows = []
    for k, length in enumerate(LENGTHS):
        ids = [101] + [int(i) for i in rng.integers(1000, 30000, size=length - 2)] + [102]
        rows.append(head(f"s{k}", ids))
    pairs = json.load(open(os.path.join(PAIRS)))
    json.dump([head(p["id"], p["input_ids"], p["token_type_ids"]) for p in pairs],
              open(os.path.join(folder, "pairs.json"), "w"), separators=(",", ":"))
    if n > 1:
        assert len({r["label"] for r in rows}) > 1, "every sequence got one label: another seed"
    json.dump(rows, open(os.path.join(folder, "expected.json"), "w"), separators=(",", ":"))
    print(f"{folder}: L={c['L']} E={c['E']} {c['dtype']}, {n} labels, {len(rows)} sequences")


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261124 + n)
