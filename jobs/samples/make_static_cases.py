#!/usr/bin/python3
"""Golden folders of static embeddings, each saved as its library saves it, with the reference
vectors of a float64 port of the library's own encode:

- st-static: sentence-transformers' StaticEmbedding module (sentence_transformers/models/
  StaticEmbedding.py): modules.json naming 0_StaticEmbedding/ (model.safetensors with
  `embedding.weight` F32, tokenizer.json), no config.json, no Normalize, a `query` prompt
  (texts.json: the texts as documents, which have none; queries.json: with the query prompt).
  tokenize: `encode_batch(texts, add_special_tokens=False)` of the texts as given (no strip);
  forward: EmbeddingBag(mode="mean") over the ids, so an empty text gives the zero vector.
- model2vec: model2vec's save_pretrained (model2vec/persistence/persistence.py): config.json
  (model_type model2vec, normalize true), model.safetensors with `embeddings` F16, tokenizer.json,
  modules.json with Normalize. StaticModel.tokenize (model2vec/model.py): each text cut to
  max_length · median_token_length characters (median over get_vocab()'s tokens, int()), ids
  without special tokens, the model's unk_token dropped, the first max_length (512) kept; then
  the mean of the rows (zeros when none is left) and, with normalize, x / (‖x‖ + 1e-32).
- model2vec-quantized: model2vec ≥ 0.7's vocabulary quantization: `embeddings` (16 cluster rows,
  F32), `mapping` (I64, token → cluster) and `weights` (F64, one per token); a token's row is
  embeddings[mapping[id]] · weights[id] (StaticModel._encode_helper); normalize false.

Ids come from Hugging Face's Rust tokenizer (npm's tokenizers) run on the tokenizer with its
post-processor removed (add_special_tokens=False) and no truncation.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_static_cases.py src/test/resources/static-cases
"""
import json, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import TEXTS, bert_uncased_tokenizer, case_folder, store  # noqa: E402
from make_bert_cases import write_safetensors  # noqa: E402
from make_xlmr_cases import reference_ids  # noqa: E402

MAX_LENGTH = 512
# texts beyond the families': many one-letter tokens (model2vec keeps 512 ids of them) and a
# long text model2vec cuts by characters first
STATIC_TEXTS = TEXTS + [["letters", "a b c d e f g " * 120],
                        ["longer", "Relative positions reach far beyond the nearest words. " * 60]]
PROMPT = "query: "


def plain_ids(tokenizer, texts):
    """Each text's ids and tokens without special tokens or a cut, as encode_batch(...,
    add_special_tokens=False) gives them."""
    content = json.load(open(tokenizer, encoding="utf-8"))
    content["post_processor"] = None
    plain = tokenizer + ".plain"
    json.dump(content, open(plain, "w", encoding="utf-8"), ensure_ascii=False)
    rows = reference_ids(plain, [{"id": str(i), "a": t} for i, t in enumerate(texts)], 1_000_000)
    os.unlink(plain)
    return [(r["input_ids"], r["tokens"]) for r in rows]


def median_token_length(tokenizer):
    """model2vec's StaticModel.median_token_length: int(np.median) of len(token) over
    get_vocab() (the model's vocabulary and the added tokens)."""
    content = json.load(open(tokenizer, encoding="utf-8"))
    vocab = dict(content["model"]["vocab"])
    vocab.update({t["content"]: t["id"] for t in content["added_tokens"]})
    return int(np.median([len(t) for t in vocab]))


def write_rows(folder, texts, ids, vector, prompt="", file="texts.json"):
    out = []
    for (name, text), (row_ids, tokens) in zip(texts, ids):
        v = vector(row_ids)
        out.append({"id": name, "a": text, "prompt": prompt, "input_ids": row_ids,
                    "tokens": tokens, "pooled": [float(f"{x:.12g}") for x in v.tolist()],
                    "norm": float(np.linalg.norm(v))})
    json.dump(out, open(os.path.join(folder, file), "w", encoding="utf-8"),
              separators=(",", ":"), ensure_ascii=False)
    return out


def st_static(out, rng):
    folder = case_folder(out, "st-static")
    module = os.path.join(folder, "0_StaticEmbedding")
    os.makedirs(module)
    tokenizer = os.path.join(module, "tokenizer.json")
    vocab = bert_uncased_tokenizer(tokenizer, extra=[PROMPT] + [t for _, t in STATIC_TEXTS])
    tensors, w = store({"embedding.weight": rng.normal(0, 0.3, size=(len(vocab), 24))}, "F32")
    write_safetensors(os.path.join(module, "model.safetensors"), tensors)
    json.dump([{"idx": 0, "name": "0", "path": "0_StaticEmbedding",
                "type": "sentence_transformers.models.StaticEmbedding"}],
              open(os.path.join(folder, "modules.json"), "w"), indent=2)
    json.dump({"__version__": {"sentence_transformers": "5.1.2"},
               "prompts": {"query": PROMPT, "document": ""}, "default_prompt_name": None,
               "similarity_fn_name": "cosine"},
              open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)
    table = w["embedding.weight"].numpy()
    mean = lambda row: table[row].mean(0) if row else np.zeros(table.shape[1])
    for prompt, file in (("", "texts.json"), (PROMPT, "queries.json")):
        ids = plain_ids(tokenizer, [prompt + t for _, t in STATIC_TEXTS])
        rows = write_rows(folder, STATIC_TEXTS, ids, mean, prompt, file)
    print(f"{folder}: vocabulary {len(vocab)}, {len(rows)} texts, as documents and as queries")


def model2vec_folder(out, name, rng, quantized):
    folder = case_folder(out, name)
    tokenizer = os.path.join(folder, "tokenizer.json")
    vocab = bert_uncased_tokenizer(tokenizer, extra=[t for _, t in STATIC_TEXTS])
    E = 16
    if quantized:
        clusters = rng.normal(0, 1.0, size=(16, E))
        clusters /= np.linalg.norm(clusters, axis=1, keepdims=True)
        tensors, w = store({"embeddings": clusters}, "F32")
        mapping = rng.integers(0, 16, size=len(vocab)).astype(np.int64)
        weights = rng.uniform(0.2, 2.0, size=len(vocab)).astype(np.float64)
        tensors["mapping"] = ("I64", mapping.shape, mapping.tobytes())
        tensors["weights"] = ("F64", weights.shape, weights.tobytes())
        table = w["embeddings"].numpy()[mapping] * weights[:, None]
        dtype, normalize = "float32", False
    else:
        tensors, w = store({"embeddings": rng.normal(0, 0.3, size=(len(vocab), E))}, "F16")
        table = w["embeddings"].numpy()
        dtype, normalize = "float16", True
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = {"model_type": "model2vec", "architectures": ["StaticModel"],
              "tokenizer_name": "sentence-transformers/all-MiniLM-L6-v2", "apply_pca": E,
              "apply_zipf": None, "sif_coefficient": 0.0001, "hidden_dim": E,
              "seq_length": 1000000, "normalize": normalize, "embedding_dtype": dtype}
    if quantized:
        config["vocabulary_quantization"] = 16
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=4)
    modules = [{"idx": 0, "name": "0", "path": ".",
                "type": "sentence_transformers.models.StaticEmbedding"}]
    if normalize:
        modules.append({"idx": 1, "name": "1", "path": "1_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
        os.makedirs(os.path.join(folder, "1_Normalize"))
    json.dump(modules, open(os.path.join(folder, "modules.json"), "w"), indent=4)
    # StaticModel.tokenize: the text cut by characters, ids without [UNK], the first 512
    cut = MAX_LENGTH * median_token_length(tokenizer)
    unk = vocab.index("[UNK]")
    ids = []
    for row_ids, tokens in plain_ids(tokenizer, [t[:cut] for _, t in STATIC_TEXTS]):
        kept = [(i, t) for i, t in zip(row_ids, tokens) if i != unk][:MAX_LENGTH]
        ids.append(([i for i, _ in kept], [t for _, t in kept]))
    assert any(len(r) == MAX_LENGTH for r, _ in ids) and any(len(t) > cut for _, t in STATIC_TEXTS)

    def encode(row):
        x = table[row].mean(0) if row else np.zeros(E)
        return x / (np.linalg.norm(x) + 1e-32) if normalize else x
    rows = write_rows(folder, STATIC_TEXTS, ids, encode)
    print(f"{folder}: vocabulary {len(vocab)}, median token length "
          f"{median_token_length(tokenizer)}, {len(rows)} texts")


def main(out):
    rng = np.random.default_rng(20261129)
    st_static(out, rng)
    model2vec_folder(out, "model2vec", rng, quantized=False)
    model2vec_folder(out, "model2vec-quantized", rng, quantized=True)


if __name__ == "__main__":
    main(sys.argv[1])
