#!/usr/bin/python3
"""A golden bge-m3-shaped folder (src/test/resources/m3-cases/bge-m3): a random XLMRobertaModel
checkpoint (F32, as bge-m3's) with bge-m3's sentence-transformers pipeline (CLS pooling,
Normalize), its special_tokens_map.json, a Unigram tokenizer.json of XLM-R's form, and the two
heads FlagEmbedding saves beside the checkpoint, each torch.save of a Linear layer's state dict:
colbert_linear.pt (Linear(E, E)) and sparse_linear.pt (Linear(E, 1)).

texts.json holds, for each text (stripped first, as the job strips texts for a
sentence-transformers folder), the reference ids (Hugging Face's Rust tokenizer), the last
hidden states of a float64 port of modeling_xlm_roberta.py, and what a float64 port of
FlagEmbedding's M3Embedder gives:
  dense   normalize(h[0]);
  lexical relu(sparse_linear(h_t)) per token, the largest per token id, the ids of <s>, </s>,
          <pad> and <unk> and weights of 0 left out (_process_token_weights), ids ascending;
  colbert normalize(colbert_linear(h_t)) for every token after <s>, the closing </s> kept
          (_colbert_embedding, _process_colbert_vecs).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_m3_cases.py src/test/resources/m3-cases
"""
import json, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import case_folder  # noqa: E402
from make_bert_cases import bert, write_sentence_transformers  # noqa: E402
from make_xlmr_cases import (LEFT_OUT, TEXTS, checkpoint, reference_ids,  # noqa: E402
                             tokenizer_json, vocabulary)

MAX_TOKENS = 32
SPECIAL = {"cls": 0, "pad": 1, "eos": 2, "unk": 3}      # <s> <pad> </s> <unk>


def write_case(out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, "bge-m3")
    vocab = vocabulary()
    tokenizer = os.path.join(folder, "tokenizer.json")
    json.dump(tokenizer_json(vocab, "template"), open(tokenizer, "w", encoding="utf-8"),
              ensure_ascii=False)
    c, w = checkpoint(dict(name="bge-m3", L=2, E=32, H=4, F=64, dtype="F32", form="template"),
                      rng, folder, len(vocab))
    write_sentence_transformers(folder, c["E"], 8192)
    pooling = os.path.join(folder, "1_Pooling", "config.json")
    json.dump(dict(json.load(open(pooling)), pooling_mode_cls_token=True,
                   pooling_mode_mean_tokens=False), open(pooling, "w"), indent=2)
    mask = {"content": "<mask>", "lstrip": True, "normalized": False, "rstrip": False,
            "single_word": False}
    json.dump({"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>", "mask_token": mask,
               "pad_token": "<pad>", "sep_token": "</s>", "unk_token": "<unk>"},
              open(os.path.join(folder, "special_tokens_map.json"), "w"), indent=2)
    E = c["E"]
    torch.manual_seed(seed)
    colbert = torch.nn.Linear(E, E)
    sparse = torch.nn.Linear(E, 1)
    with torch.no_grad():
        colbert.weight.normal_(0, 1 / np.sqrt(E))
        sparse.weight.normal_(0, 1 / np.sqrt(E))
        sparse.bias.fill_(0.1)
    torch.save(colbert.state_dict(), os.path.join(folder, "colbert_linear.pt"))
    torch.save(sparse.state_dict(), os.path.join(folder, "sparse_linear.pt"))
    wc, bc = colbert.weight.detach().double(), colbert.bias.detach().double()
    ws, bs = sparse.weight.detach().double(), sparse.bias.detach().double()

    rows = reference_ids(tokenizer, [{"id": i, "a": t} for i, t in TEXTS], MAX_TOKENS,
                         strip=True)
    assert any(LEFT_OUT in r["a"] and SPECIAL["unk"] in r["input_ids"] for r in rows), "no <unk>"
    assert any(r["full_length"] > MAX_TOKENS for r in rows), "no text is cut"
    out_rows = []
    for row, (_, text) in zip(rows, TEXTS):
        ids = row["input_ids"]
        h = bert(c, w, ids, offset=2)
        dense = h[0] / h[0].norm()
        weights = torch.relu(h @ ws.T + bs).squeeze(-1)
        lexical = {}
        for weight, idx in zip(weights.tolist(), ids):
            if idx not in SPECIAL.values() and weight > 0 and weight > lexical.get(idx, 0):
                lexical[idx] = weight
        vectors = torch.nn.functional.normalize(h[1:] @ wc.T + bc, dim=-1)
        out_rows.append({"id": row["id"], "a": text, "input_ids": ids, "tokens": row["tokens"],
                         "last_hidden_state": [[float(f"{v:.8g}") for v in r]
                                               for r in h.tolist()],
                         "pooled": [float(f"{v:.10g}") for v in dense.tolist()],
                         "sparse_indices": sorted(lexical),
                         "sparse_values": [float(f"{lexical[i]:.10g}") for i in sorted(lexical)],
                         "multi_vectors": [[float(f"{v:.8g}") for v in r]
                                           for r in vectors.tolist()]})
    json.dump(out_rows, open(os.path.join(folder, "texts.json"), "w", encoding="utf-8"),
              separators=(",", ":"), ensure_ascii=False)
    print(f"{folder}: L={c['L']} E={E} F32, vocabulary {len(vocab)}, {len(out_rows)} texts")


if __name__ == "__main__":
    write_case(sys.argv[1], 20261127)
