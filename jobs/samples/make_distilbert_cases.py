#!/usr/bin/python3
"""Golden DistilBERT folders: random checkpoints saved as Hugging Face saves DistilBERT, with a
WordPiece tokenizer.json of distilbert-base-uncased's form (bert-base-uncased's), cut from
BERT's vocabulary (jobs/samples/family_cases.py):

  - distilbert-embedding: DistilBertModel, whole, F32, learned positions, a sentence-transformers
    pipeline (mean pooling, Normalize), texts;
  - distilbert-sst2: DistilBertForSequenceClassification, `distilbert.` prefix with
    pre_classifier and classifier, F16, sinusoidal_pos_embds (the table holds the sinusoids,
    as create_sinusoidal_embeddings writes them), labels NEGATIVE and POSITIVE: texts and
    (query, passage) pairs with logits, softmax scores and labels.

The reference outputs come from a float64 port of modeling_distilbert.py: LayerNorm(word +
position) with eps 1e-12, no token types; per layer q_lin, k_lin, v_lin, softmax(q·kᵀ/√D),
out_lin, sa_layer_norm(attn + x), lin2(act(lin1(x))), output_layer_norm(ffn + x); the head
classifier(relu(pre_classifier(h[0]))).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_distilbert_cases.py src/test/resources/distilbert-cases
"""
import json, math, os, shutil, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (PAIRS, bert_uncased_tokenizer, gelu, layer_norm,  # noqa: E402
                          store, write_classifier_rows, write_texts)
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402

MAX_TOKENS = 48
POSITIONS = 512
EPS = 1e-12


def sinusoids(positions, dim):
    """create_sinusoidal_embeddings' table."""
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                    for pos in range(positions)])
    out = np.zeros((positions, dim))
    out[:, 0::2] = np.sin(enc[:, 0::2])
    out[:, 1::2] = np.cos(enc[:, 1::2])
    return out


def random_distilbert(c, rng):
    E, F, V = c["E"], c["F"], c["V"]
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embeddings.word_embeddings.weight": normal(V, E, std=0.5),
         "embeddings.position_embeddings.weight": sinusoids(POSITIONS, E) if c["sinusoidal"]
         else normal(POSITIONS, E, std=0.3),
         "embeddings.LayerNorm.weight": 1 + normal(E, std=0.1),
         "embeddings.LayerNorm.bias": normal(E, std=0.1)}
    for i in range(c["L"]):
        p = f"transformer.layer.{i}."
        for n in ("q_lin", "k_lin", "v_lin"):
            t[p + f"attention.{n}.weight"] = normal(E, E, std=1.8 / np.sqrt(E))
            t[p + f"attention.{n}.bias"] = normal(E, std=0.1)
        t[p + "attention.out_lin.weight"] = normal(E, E, std=1 / np.sqrt(E))
        t[p + "attention.out_lin.bias"] = normal(E, std=0.1)
        t[p + "ffn.lin1.weight"] = normal(F, E, std=1 / np.sqrt(E))
        t[p + "ffn.lin1.bias"] = normal(F, std=0.1)
        t[p + "ffn.lin2.weight"] = normal(E, F, std=1 / np.sqrt(F))
        t[p + "ffn.lin2.bias"] = normal(E, std=0.1)
        for n in ("sa_layer_norm", "output_layer_norm"):
            t[p + n + ".weight"] = 1 + normal(E, std=0.1)
            t[p + n + ".bias"] = normal(E, std=0.1)
    return t


def distilbert(c, w, ids):
    """Last hidden states (T, E) of one unpadded sequence, float64."""
    T, H, E = len(ids), c["H"], c["E"]
    D = E // H
    x = layer_norm(w["embeddings.word_embeddings.weight"][torch.tensor(ids)]
                   + w["embeddings.position_embeddings.weight"][:T],
                   w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], EPS)
    for i in range(c["L"]):
        p = f"transformer.layer.{i}."
        lin = lambda v, n: v @ w[p + n + ".weight"].T + w[p + n + ".bias"]
        q, k, v = (lin(x, f"attention.{n}").view(T, H, D).transpose(0, 1)
                   for n in ("q_lin", "k_lin", "v_lin"))
        a = torch.softmax((q / math.sqrt(D)) @ k.transpose(1, 2), dim=-1)
        attn = lin((a @ v).transpose(0, 1).reshape(T, E), "attention.out_lin")
        x = layer_norm(attn + x, w[p + "sa_layer_norm.weight"], w[p + "sa_layer_norm.bias"], EPS)
        ffn = lin(gelu(lin(x, "ffn.lin1")), "ffn.lin2")
        x = layer_norm(ffn + x, w[p + "output_layer_norm.weight"],
                       w[p + "output_layer_norm.bias"], EPS)
    return x


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tokenizer = os.path.join(folder, "tokenizer.json")
    labels = c.get("labels")
    vocab = bert_uncased_tokenizer(tokenizer, [t for row in PAIRS for t in row[1:]]
                                   if labels else ())
    c = dict(c, V=len(vocab))
    values = random_distilbert(c, rng)
    config = {"activation": "gelu", "architectures": ["DistilBertModel"],
              "attention_dropout": 0.1, "dim": c["E"], "dropout": 0.1, "hidden_dim": c["F"],
              "initializer_range": 0.02, "max_position_embeddings": POSITIONS,
              "model_type": "distilbert", "n_heads": c["H"], "n_layers": c["L"],
              "pad_token_id": 0, "qa_dropout": 0.1, "seq_classif_dropout": 0.2,
              "sinusoidal_pos_embds": c["sinusoidal"], "tie_weights_": True,
              "transformers_version": "4.41.2", "vocab_size": c["V"]}
    if labels:
        tensors, w = store(values, c["dtype"], "distilbert.")
        E = c["E"]
        head = {"pre_classifier.weight": rng.normal(0, 2 / np.sqrt(E), (E, E)),
                "pre_classifier.bias": rng.normal(0, 0.1, (E,)),
                "classifier.weight": rng.normal(0, 1.0, (len(labels), E)),
                "classifier.bias": rng.normal(0, 0.1, (len(labels),))}
        more, hw = store(head, c["dtype"])
        tensors.update(more)
        config.update(architectures=["DistilBertForSequenceClassification"],
                      id2label={str(i): l for i, l in enumerate(labels)},
                      label2id={l: i for i, l in enumerate(labels)})
    else:
        tensors, w = store(values, c["dtype"])
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    forward = lambda ids, types: distilbert(c, w, ids)
    if labels:
        def head_logits(h):
            x = torch.relu(h[0] @ hw["pre_classifier.weight"].T + hw["pre_classifier.bias"])
            return x @ hw["classifier.weight"].T + hw["classifier.bias"]
        write_classifier_rows(folder, tokenizer, MAX_TOKENS, forward, head_logits, c)
    else:
        write_sentence_transformers(folder, c["E"], 512)
        write_texts(folder, tokenizer, MAX_TOKENS, forward)
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} {c['dtype']}, vocabulary {c['V']}, "
          f"{'labels ' + str(labels) if labels else 'embedding'}")


CASES = [
    dict(name="distilbert-embedding", L=2, E=32, H=4, F=64, dtype="F32", sinusoidal=False),
    dict(name="distilbert-sst2", L=2, E=24, H=2, F=48, dtype="F16", sinusoidal=True,
         labels=["NEGATIVE", "POSITIVE"], problem_type=None, activation=None),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261127 + n)
