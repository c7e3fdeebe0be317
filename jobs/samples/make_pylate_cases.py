#!/usr/bin/python3
"""Golden PyLate ColBERT folders (src/test/resources/pylate-cases), saved as PyLate saves them:
the Transformer module (config.json, model.safetensors, a tokenizer.json to which
`add_tokens(["[Q] ", "[D] "])` added the prefixes, the embedding rows grown to match), a Dense
module without bias (1_Dense: config.json, model.safetensors with linear.weight,
pylate.models.Dense.Dense in modules.json), no Pooling, special_tokens_map.json, and PyLate's
keys in config_sentence_transformers.json:

  - colbert-bert: a random BertModel (F32, 2 layers), WordPiece cut from BERT's uncased
    vocabulary, Dense 32 -> 16, query_length 16, document_length 24, attend_to_expansion_tokens
    false, no do_query_expansion key (PyLate's default: true), prompts {};
  - colbert-modernbert: a random ModernBertModel (BF16, 3 layers, a local window of 16, every
    third layer global), byte-level BPE, Dense 32 -> 24, query_length 12, document_length 32,
    attend_to_expansion_tokens true, do_query_expansion true, prompts {"query": "",
    "document": ""}.

texts.json holds, for each text, what a float64 port of PyLate's ColBERT.encode gives (read
from lightonai/pylate, pylate/models/colbert.py: tokenize, insert_prefix_token, skiplist_mask,
encode), each as input_ids, the count of attended tokens and multi_vectors:
  document  stripped, cut to document_length - 1 tokens, the document prefix's id inserted after
            the first token; the vectors of every token whose id is not a skiplist word's
            (convert_tokens_to_ids: a word the vocabulary lacks is [UNK]'s id);
  query     cut to query_length - 1, padded with [MASK] to query_length - 1, the query prefix
            inserted; the padding attended to or not as the folder says; every token's vector;
  query_attending / query_not_attending
            the same with attend_to_expansion_tokens set so (the test rewrites the folder's
            config to match);
  query_unexpanded
            do_query_expansion false: no padding, every token's vector.
Each vector is normalize(Dense(h_t)), h the last hidden states of the family's float64 port with
an attention mask of 0 on the keys not attended to (their states still computed).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_pylate_cases.py src/test/resources/pylate-cases
"""
import json, os, string, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import TEXTS, bert_uncased_tokenizer, case_folder  # noqa: E402
from make_bert_cases import bert, random_bert, stored, write_safetensors  # noqa: E402
from make_modernbert_cases import (modernbert, random_modernbert, tokenizer_json,  # noqa: E402
                                   train_bpe, config_json as modernbert_config)
from make_xlmr_cases import reference_ids  # noqa: E402

PREFIXES = ["[Q] ", "[D] "]
SKIPLIST = list(string.punctuation)
TEXTS = TEXTS + [["punctuation", "Wait... what?! (yes) -- [maybe]; 'no' \"so\" 42%."],
                 ["edges", "   padded on both sides \n"]]


def add_prefixes(tokenizer):
    """PyLate's tokenizer.add_tokens(["[Q] ", "[D] "]): plain added tokens after the vocabulary
    (normalized, not special); returns their ids."""
    t = json.load(open(tokenizer, encoding="utf-8"))
    first = 1 + max([i for i in t["model"]["vocab"].values()]
                    + [a["id"] for a in t["added_tokens"]])
    for i, p in enumerate(PREFIXES):
        t["added_tokens"].append({"id": first + i, "content": p, "single_word": False,
                                  "lstrip": False, "rstrip": False, "normalized": True,
                                  "special": False})
    json.dump(t, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    return first, first + 1


def write_checkpoint(folder, values, dtype):
    """model.safetensors of the values in dtype; returns them as stored, in float64."""
    tensors, w = {}, {}
    for name, v in values.items():
        raw, back = stored(v, dtype)
        tensors[name] = (dtype, v.shape, raw)
        w[name] = back
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    return w


def token_id(tokenizer, token, unk):
    """convert_tokens_to_ids of a fast tokenizer: added tokens, the vocabulary, else [UNK]'s."""
    t = json.load(open(tokenizer, encoding="utf-8"))
    for a in t["added_tokens"]:
        if a["content"] == token:
            return a["id"]
    return t["model"]["vocab"].get(token, unk)


def write_pylate_files(folder, c, width, out, dense, config):
    json.dump([{"idx": 0, "name": "0", "path": "",
                "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Dense", "type": "pylate.models.Dense.Dense"}],
              open(os.path.join(folder, "modules.json"), "w"), indent=2)
    os.makedirs(os.path.join(folder, "1_Dense"))
    json.dump({"in_features": width, "out_features": out, "bias": False,
               "activation_function": "torch.nn.modules.linear.Identity",
               "use_residual": False},
              open(os.path.join(folder, "1_Dense", "config.json"), "w"), indent=2)
    raw, back = stored(dense, "F32")
    write_safetensors(os.path.join(folder, "1_Dense", "model.safetensors"),
                      {"linear.weight": ("F32", dense.shape, raw)})
    json.dump({"max_seq_length": config["document_length"] - 1, "do_lower_case": False},
              open(os.path.join(folder, "sentence_bert_config.json"), "w"), indent=2)
    json.dump(dict({"__version__": {"sentence_transformers": "4.0.2", "pylate": "1.2.0"},
                    "default_prompt_name": None, "similarity_fn_name": "MaxSim",
                    "skiplist_words": SKIPLIST}, **config),
              open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)
    json.dump({"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]",
               "sep_token": "[SEP]", "unk_token": "[UNK]"},
              open(os.path.join(folder, "special_tokens_map.json"), "w"), indent=2)
    return back


def encode(forward, dense, tokenizer, texts, config, prefix_ids, mask_id, skip_ids):
    """PyLate's ColBERT.encode of every text as a document and as queries."""
    def vectors(ids, keys, kept):
        h = forward(ids, None if keys == len(ids) else keys)
        v = torch.nn.functional.normalize(h @ dense.T, dim=-1)
        return [[float(f"{x:.8g}") for x in v[t].tolist()] for t in range(len(ids)) if kept(t)]

    def query(row, expand, attend):
        ids = list(row["input_ids"])
        real = len(ids) + 1
        if expand:
            ids += [mask_id] * (config["query_length"] - 1 - len(ids))
        ids = ids[:1] + [prefix_ids[0]] + ids[1:]
        keys = len(ids) if attend and expand else real
        return {"input_ids": ids, "attended": keys,
                "multi_vectors": vectors(ids, keys, lambda t: expand or t < real)}

    rows = [{"id": i, "a": t} for i, t in texts]
    documents = reference_ids(tokenizer, rows, config["document_length"] - 1, strip=True)
    queries = reference_ids(tokenizer, rows, config["query_length"] - 1, strip=True)
    out = []
    for d, q, (_, text) in zip(documents, queries, texts):
        ids = d["input_ids"][:1] + [prefix_ids[1]] + d["input_ids"][1:]
        expand = config.get("do_query_expansion", True)
        out.append({"id": d["id"], "a": text, "full_length": d["full_length"],
                    "document": {"input_ids": ids, "attended": len(ids), "multi_vectors":
                                 vectors(ids, len(ids), lambda t: ids[t] not in skip_ids)},
                    "query": query(q, expand, config["attend_to_expansion_tokens"]),
                    "query_attending": query(q, True, True),
                    "query_not_attending": query(q, True, False),
                    "query_unexpanded": query(q, False, False)})
    return out


def write_bert(out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, "colbert-bert")
    tokenizer = os.path.join(folder, "tokenizer.json")
    vocab = bert_uncased_tokenizer(tokenizer, extra=[t for _, t in TEXTS[-2:]])
    prefix_ids = add_prefixes(tokenizer)
    c = dict(L=2, E=32, H=4, F=64, V=len(vocab) + 2, P=64, S=2, eps=1e-12, act="gelu")
    w = write_checkpoint(folder, random_bert(c, rng), "F32")
    json.dump({"architectures": ["BertModel"], "model_type": "bert", "hidden_size": c["E"],
               "num_hidden_layers": c["L"], "num_attention_heads": c["H"],
               "intermediate_size": c["F"], "hidden_act": "gelu", "layer_norm_eps": c["eps"],
               "max_position_embeddings": c["P"], "type_vocab_size": c["S"],
               "vocab_size": c["V"], "pad_token_id": 0, "position_embedding_type": "absolute",
               "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1},
              open(os.path.join(folder, "config.json"), "w"), indent=2)
    config = {"prompts": {}, "query_prefix": "[Q] ", "document_prefix": "[D] ",
              "query_length": 16, "document_length": 24, "attend_to_expansion_tokens": False}
    dense = write_pylate_files(folder, c, c["E"], 16,
                               rng.normal(0.0, 1 / np.sqrt(c["E"]), size=(16, c["E"])), config)
    unk = vocab.index("[UNK]")
    skip = {token_id(tokenizer, word, unk) for word in SKIPLIST}
    rows = encode(lambda ids, keys: bert(c, w, ids, keys=keys), dense, tokenizer, TEXTS, config,
                  prefix_ids, vocab.index("[MASK]"), skip)
    check_and_write(folder, rows, config, unk in skip)


def write_modernbert(out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, "colbert-modernbert")
    vocab, merges = train_bpe(400)
    as_json, ids = tokenizer_json(vocab, merges, pair_merges=False)
    tokenizer = os.path.join(folder, "tokenizer.json")
    json.dump(as_json, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    prefix_ids = add_prefixes(tokenizer)
    c = dict(L=3, E=32, H=4, F=48, V=len(ids) + 2, every=3, local_attention=16, bias=False,
             eps=1e-5, act="gelu", act_name="gelu", global_theta=160000.0,
             local_theta=10000.0, architecture="ModernBertModel", config_form="4.x")
    w = write_checkpoint(folder, random_modernbert(c, rng), "BF16")
    json.dump(modernbert_config(c, c["V"], ids), open(os.path.join(folder, "config.json"), "w"),
              indent=2)
    config = {"prompts": {"query": "", "document": ""}, "query_prefix": "[Q] ",
              "document_prefix": "[D] ", "query_length": 12, "document_length": 32,
              "attend_to_expansion_tokens": True, "do_query_expansion": True}
    dense = write_pylate_files(folder, c, c["E"], 24,
                               rng.normal(0.0, 1 / np.sqrt(c["E"]), size=(24, c["E"])), config)
    skip = {token_id(tokenizer, word, None) for word in SKIPLIST}
    rows = encode(lambda ids, keys: modernbert(c, w, ids, keys=keys), dense, tokenizer, TEXTS,
                  config, prefix_ids, ids["[MASK]"], skip)
    check_and_write(folder, rows, config, False)


def check_and_write(folder, rows, config, unk_skipped):
    assert any(r["full_length"] > config["document_length"] - 1 for r in rows), "none cut"
    assert any(len(r["document"]["multi_vectors"]) < len(r["document"]["input_ids"])
               for r in rows), "no skiplist token"
    assert any(len(r["query_unexpanded"]["input_ids"]) < config["query_length"]
               for r in rows), "no short query"
    json.dump(rows, open(os.path.join(folder, "texts.json"), "w", encoding="utf-8"),
              separators=(",", ":"), ensure_ascii=False)
    print(f"{folder}: {len(rows)} texts, [UNK] in the skiplist: {unk_skipped}")


if __name__ == "__main__":
    write_bert(sys.argv[1], 20261127)
    write_modernbert(sys.argv[1], 20261128)
