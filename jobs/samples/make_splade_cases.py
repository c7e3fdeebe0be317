#!/usr/bin/python3
"""Golden SPLADE folders (issue 33): random checkpoints saved as Hugging Face saves
BertForMaskedLM (`bert.` prefix, no pooler, `cls.predictions.transform.*`,
`cls.predictions.bias`, the decoder tied to the word embeddings and so left out of the file)
with sentence-transformers' SparseEncoder modules (MLMTransformer, then SpladePooling in
1_SpladePooling), on all-MiniLM-L6-v2's real WordPiece tokenizer; and the sparse vectors a
float64 PyTorch port of BertForMaskedLM and SpladePooling gives texts from the licenses in
/usr/share/common-licenses and a few more:
  x_t = LayerNorm(gelu(W_t h_t + b_t)), z_t = W_e x_t + b   (W_e: the word embeddings)
  s = max_t log(1 + relu(z_t))      (or sum_t; log1p_relu takes log1p once more)
Two folders: splade-max (max, relu, F16, tied: SPLADE v2 and later) and splade-sum (sum,
log1p_relu, BF16, with a decoder weight of its own, as older checkpoints store it).

Random weights can leave a logit within rounding of 0, where relu decides whether an entry is
there at all; a seed that does is skipped (no logit within 2e-5 of 0), so float32 keeps every
index. texts.json holds each text's ids and its sparse vector (indices ascending, values).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_splade_cases.py src/test/resources/splade-cases
"""
import json, os, shutil, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_bert_cases import act, bert, layer_norm, random_bert, stored, write_safetensors  # noqa
from make_token_classifier_cases import MINILM, TEXTS, spans  # noqa: E402

MAX_SEQ = 64
CLEAR = 2e-5


class Unclear(Exception):
    pass


def write_case(c, out, seed):
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tokenizer = os.path.join(folder, "tokenizer.json")
    shutil.copy(MINILM, tokenizer)
    rows = [r["windows"][0] for r in spans(tokenizer, TEXTS, MAX_SEQ, -1)]
    assert any(len(r["ids"]) == MAX_SEQ for r in rows), "no text is cut"
    for attempt in range(40):
        rng = np.random.default_rng(seed + attempt)
        c = dict(c, V=30522, S=2)
        values = random_bert(c, rng)
        del values["pooler.dense.weight"], values["pooler.dense.bias"]
        E = c["E"]
        p = "cls.predictions."
        values[p + "transform.dense.weight"] = rng.normal(0.0, 1 / np.sqrt(E), size=(E, E))
        values[p + "transform.dense.bias"] = rng.normal(0.0, 0.1, size=(E,))
        # As a trained SPLADE head's: most of the vocabulary far below 0, a few terms above,
        # each text moving them a little (a small norm scale keeps W_e x small).
        values[p + "transform.LayerNorm.weight"] = 0.1 + rng.normal(0.0, 0.01, size=(E,))
        values[p + "transform.LayerNorm.bias"] = rng.normal(0.0, 0.01, size=(E,))
        active = rng.random(30522) < 0.01
        on = (1.5, 0.3) if c["sum"] else (0.3, 0.4)   # sum: each token's logit clear of 0
        values[p + "bias"] = np.where(active, rng.normal(*on, size=(30522,)),
                                      rng.normal(-6.0, 0.5, size=(30522,)))
        if not c["tied"]:
            values[p + "decoder.weight"] = rng.normal(0.0, 0.5, size=(30522, E))   # untied
        tensors, w = {}, {}
        for name, v in values.items():
            raw, back = stored(v, c["dtype"])
            tensors[name if name.startswith("cls.") else "bert." + name] = \
                (c["dtype"], v.shape, raw)
            w[name] = back
        decoder = w["embeddings.word_embeddings.weight"] if c["tied"] \
            else w[p + "decoder.weight"]
        try:
            expected = []
            for (rid, text), row in zip(TEXTS, rows):
                h = bert(c, w, row["ids"])
                x = act("gelu", h @ w[p + "transform.dense.weight"].T
                        + w[p + "transform.dense.bias"])
                x = layer_norm(x, w[p + "transform.LayerNorm.weight"],
                               w[p + "transform.LayerNorm.bias"], c["eps"])
                z = x @ decoder.T + w[p + "bias"]
                if c["sum"]:
                    if (z.abs() < CLEAR).any():
                        raise Unclear()
                    s = torch.log1p(torch.relu(z))
                    if c["twice"]:
                        s = torch.log1p(s)
                    s = s.sum(0)
                else:
                    top = z.max(0).values
                    if (top.abs() < CLEAR).any():
                        raise Unclear()
                    s = torch.log1p(torch.relu(top))
                    if c["twice"]:
                        s = torch.log1p(s)
                nz = torch.nonzero(s).flatten().tolist()
                expected.append({"id": rid, "text": text, "input_ids": row["ids"],
                                 "sparse_indices": nz,
                                 "sparse_values": [float(f"{s[i]:.9g}") for i in nz]})
        except Unclear:
            continue
        break
    else:
        raise SystemExit("no seed left every logit clear of 0")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"architectures": ["BertForMaskedLM"], "model_type": "bert",
              "hidden_size": E, "num_hidden_layers": c["L"], "num_attention_heads": c["H"],
              "intermediate_size": c["F"], "hidden_act": "gelu", "layer_norm_eps": c["eps"],
              "max_position_embeddings": c["P"], "type_vocab_size": 2, "vocab_size": 30522,
              "pad_token_id": 0, "position_embedding_type": "absolute",
              "tie_word_embeddings": c["tied"]}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    json.dump([{"idx": 0, "name": "0", "path": "",
                "type": "sentence_transformers.sparse_encoder.models.MLMTransformer"},
               {"idx": 1, "name": "1", "path": "1_SpladePooling",
                "type": "sentence_transformers.sparse_encoder.models.SpladePooling"}],
              open(os.path.join(folder, "modules.json"), "w"), indent=2)
    os.makedirs(os.path.join(folder, "1_SpladePooling"))
    json.dump({"pooling_strategy": "sum" if c["sum"] else "max",
               "activation_function": "log1p_relu" if c["twice"] else "relu",
               "word_embedding_dimension": 30522},
              open(os.path.join(folder, "1_SpladePooling", "config.json"), "w"), indent=2)
    json.dump({"max_seq_length": MAX_SEQ, "do_lower_case": False},
              open(os.path.join(folder, "sentence_bert_config.json"), "w"), indent=2)
    json.dump({"model_type": "SparseEncoder", "prompts": {}, "default_prompt_name": None,
               "similarity_fn_name": "dot"},
              open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)
    json.dump(expected, open(os.path.join(folder, "texts.json"), "w", encoding="utf-8"),
              ensure_ascii=False, separators=(",", ":"))
    sizes = [len(e["sparse_indices"]) for e in expected]
    print(f"{folder}: seed {seed + attempt}, {len(expected)} texts, {min(sizes)} to "
          f"{max(sizes)} non-zero entries")


CASES = [
    dict(name="splade-max", L=2, E=32, H=4, F=64, P=128, eps=1e-12, act="gelu", dtype="F16",
         tied=True, sum=False, twice=False),
    dict(name="splade-sum", L=2, E=32, H=4, F=64, P=128, eps=1e-12, act="gelu", dtype="BF16",
         tied=False, sum=True, twice=True),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261127 + 100 * n)
