#!/usr/bin/python3
"""Golden XLM-RoBERTa folders: random checkpoints saved as Hugging Face saves XLMRobertaModel
(whole, BF16, with a sentence-transformers pipeline: mean pooling, Normalize) and
XLMRobertaForSequenceClassification (`roberta.` prefix, `classifier.dense`,
`classifier.out_proj`; 3 labels F32, and 1 label F16 with a CrossEncoder's Identity), each with a
SentencePiece-Unigram tokenizer.json of the shape the Hub's XLM-R files have (`<s> <pad> </s>
<unk>` at ids 0 to 3, Metaspace, `<s> A </s>` and `<s> A </s></s> B </s>`), in both forms: the
older RobertaProcessing post-processor and today's TemplateProcessing. Its normalizer is NFKC
then runs of spaces collapsed, where the Hub's files carry SentencePiece's precompiled NFKC map.
And a CamemBERT folder (model_type camembert, CamembertModel, F32: camembert-base's specials,
`<s>` 5 and `</s>` 6, with RobertaProcessing), and a RoBERTa folder (model_type roberta,
RobertaModel, F16, sentence-transformers pipeline),
which differs in its tokenizer only: byte-level BPE with RobertaProcessing.

The reference ids come from Hugging Face's Rust tokenizer (jobs/samples/tokenize_ids.js on npm's
`tokenizers` 0.13.3); the reference outputs from a float64 PyTorch port of
modeling_xlm_roberta.py: BERT's layers with position ids from padding_idx + 1 and token type 0
everywhere (XLM-R's tokenizer passes no token_type_ids), the classifier's
out_proj(tanh(dense(h[<s>]))).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_xlmr_cases.py src/test/resources/xlmr-cases
"""
import json, os, shutil, subprocess, sys, tempfile, unicodedata
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_bert_cases import (bert, random_bert, stored, write_safetensors,  # noqa: E402
                             write_sentence_transformers)
from make_classifier_cases import scores  # noqa: E402

MAX_TOKENS = 32        # the jobs' input.max-tokens for texts and pairs
POSITIONS = 66         # max_position_embeddings: 64 tokens after pad_token_id 1
TEXTS = [
    ["en", "The quick brown fox jumps over the lazy dog."],
    ["fr", "Le café est très chaud ce matin, dit la naïve Zoë."],
    ["de", "Der Bär läuft über die Straße nach Köln."],
    ["es", "El niño comió una manzana en el jardín."],
    ["ja", "東京は日本の首都です。"],
    ["ru", "Москва — столица России."],
    ["ar", "القاهرة عاصمة مصر"],
    ["hi", "नमस्ते दुनिया"],
    ["emoji", "Emoji 😀👍🏽 and a snowman ☃ here"],
    ["empty", ""],
    ["spaces", "  several   spaces\tand a tab  "],
    ["long", "This sentence is repeated to go past the limit of tokens. " * 12],
]
PAIRS = [
    ["p0", "what is the capital of france", "Paris is the capital and most populous city of France."],
    ["p1", "", "An empty query still makes a pair."],
    ["p2", "Crème brûlée ou café?", "東京は日本の首都です。Accents and CJK on the second side."],
    ["p3", "one two three four five six seven eight nine ten eleven twelve thirteen fourteen",
     "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi"],
    ["p4", "short query", "a very long passage " + "that goes on and on " * 6],
    ["p5", "x", "y"],
]
LEFT_OUT = "☃"   # a character the vocabulary lacks: <unk>


def vocabulary(texts=None):
    """Pieces and log-probabilities of the texts (these texts and pairs unless given):
    specials, whole short words, word starts and ends, every character alone and after ▁;
    scores favour longer pieces so that words split."""
    words, chars = {}, set()
    if texts is None:
        texts = [t for _, t in TEXTS] + [p for row in PAIRS for p in row[1:]]
    for text in texts:
        text = unicodedata.normalize("NFKC", text)
        for word in text.split():
            if LEFT_OUT not in word:
                words[word] = words.get(word, 0) + 1
                chars.update(word)
    pieces = {}
    for word in words:
        if len(word) <= 7:
            pieces["▁" + word] = -2.0 - 0.3 * len(word)
        pieces.setdefault("▁" + word[:3], -6.0)
        pieces.setdefault(word[-3:], -6.5)
    for c in sorted(chars):
        pieces.setdefault(c, -9.0)
        pieces.setdefault("▁" + c, -9.5)
    pieces.setdefault("▁", -10.0)
    specials = [["<s>", 0.0], ["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]]
    vocab = specials + [[p, s] for p, s in sorted(pieces.items())] + [["<mask>", 0.0]]
    return vocab


def camembert_vocabulary(vocab):
    """CamemBERT's order: `<s>NOTUSED <pad> </s>NOTUSED <unk> <unk>NOTUSED <s> </s>` at ids 0
    to 6, then the pieces, `<mask>` last."""
    specials = [["<s>NOTUSED", 0.0], ["<pad>", 0.0], ["</s>NOTUSED", 0.0], ["<unk>", 0.0],
                ["<unk>NOTUSED", 0.0], ["<s>", 0.0], ["</s>", 0.0]]
    return specials + vocab[4:]


def tokenizer_json(vocab, form):
    def added(i, content, lstrip=False):
        return {"id": i, "content": content, "single_word": False, "lstrip": lstrip,
                "rstrip": False, "normalized": False, "special": True}
    mask = len(vocab) - 1
    if form == "camembert":  # camembert-base's: <s> 5, </s> 6
        post = {"type": "RobertaProcessing", "sep": ["</s>", 6], "cls": ["<s>", 5],
                "trim_offsets": True, "add_prefix_space": True}
        base = tokenizer_json(vocab, "roberta")
        base["added_tokens"] = [added(i, t) for i, t in enumerate(
            ["<s>NOTUSED", "<pad>", "</s>NOTUSED", "<unk>", "<unk>NOTUSED", "<s>", "</s>"])] \
            + [added(mask, "<mask>", lstrip=True)]
        base["post_processor"] = post
        return base
    if form == "roberta":   # older files on the Hub
        post = {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                "trim_offsets": True, "add_prefix_space": True}
    else:                   # what today's converter writes
        tok = lambda t: {"SpecialToken": {"id": t, "type_id": 0}}
        seq = lambda s: {"Sequence": {"id": s, "type_id": 0}}
        post = {"type": "TemplateProcessing",
                "single": [tok("<s>"), seq("A"), tok("</s>")],
                "pair": [tok("<s>"), seq("A"), tok("</s>"), tok("</s>"), seq("B"), tok("</s>")],
                "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]}
                                   for t, i in (("<s>", 0), ("</s>", 2))}}
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [added(0, "<s>"), added(1, "<pad>"), added(2, "</s>"),
                             added(3, "<unk>"), added(mask, "<mask>", lstrip=True)],
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "NFKC"},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
            "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True},
            "post_processor": post,
            "decoder": {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True},
            "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab}}


def bpe_tokenizer_json():
    """RoBERTa's form (model_type roberta): byte-level BPE (merges trained on the texts by
    jobs/samples/make_modernbert_cases.py), `<s> <pad> </s> <unk>` at ids 0 to 3 and `<mask>` last, no
    normalizer, ByteLevel without a prefix space, RobertaProcessing. Returns it and its size."""
    from make_modernbert_cases import train_bpe   # it imports this module's texts
    pieces, merges = train_bpe(400)
    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    vocab = {t: i for i, t in enumerate(specials + pieces + ["<mask>"])}
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": t == "<mask>",
              "rstrip": False, "normalized": False, "special": True}
             for t in specials + ["<mask>"]]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                              "trim_offsets": True, "use_regex": True},
            "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2],
                               "cls": ["<s>", 0], "trim_offsets": True,
                               "add_prefix_space": False},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                        "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": "", "end_of_word_suffix": "",
                      "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                      "merges": [f"{a} {b}" for a, b in merges]}}, len(vocab)


def reference_ids(tokenizer, rows, max_tokens, strip=False):
    """Each row's ids, type ids and tokens from Hugging Face's Rust tokenizer, "a" (and "b") cut
    at max_tokens as pairs are cut; with strip, each text first loses its edge whitespace as
    sentence-transformers' Transformer.tokenize strips it (Python's str.strip())."""
    if strip:
        rows = [dict(r, **{k: r[k].strip() for k in ("a", "b") if k in r}) for r in rows]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(rows, f)
    env = dict(os.environ, NODE_PATH=os.environ.get("NODE_PATH", "/tmp/tok13/node_modules"))
    out = subprocess.run(["node", os.path.join(HERE, "tokenize_ids.js"), tokenizer,
                          str(max_tokens), f.name], capture_output=True, text=True, env=env,
                         check=True)
    os.unlink(f.name)
    return json.loads(out.stdout)


def checkpoint(c, rng, folder, vocab_size):
    c = dict(c, V=vocab_size, P=POSITIONS, S=1, eps=1e-5, act="gelu")
    values = random_bert(c, rng)
    labels = c.get("labels")
    if labels:
        E = c["E"]
        values["classifier.dense.weight"] = rng.normal(0.0, 2 / np.sqrt(E), size=(E, E))
        values["classifier.dense.bias"] = rng.normal(0.0, 0.1, size=(E,))
        values["classifier.out_proj.weight"] = rng.normal(0.0, 1.0, size=(len(labels), E))
        values["classifier.out_proj.bias"] = rng.normal(0.0, 0.1, size=(len(labels),))
    else:   # XLMRobertaModel keeps its pooler, which sentence vectors do not use
        values["pooler.dense.weight"] = rng.normal(0.0, 0.1, size=(c["E"], c["E"]))
        values["pooler.dense.bias"] = rng.normal(0.0, 0.1, size=(c["E"],))
    tensors, w = {}, {}
    for name, v in values.items():
        raw, back = stored(v, c["dtype"])
        prefixed = labels and not name.startswith("classifier.")
        tensors[("roberta." if prefixed else "") + name] = (c["dtype"], v.shape, raw)
        w[name] = back
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    model_type = {"bpe": "roberta", "camembert": "camembert"}.get(c["form"], "xlm-roberta")
    config = {"architectures": ["XLMRobertaForSequenceClassification" if labels
                                else {"roberta": "RobertaModel", "camembert": "CamembertModel"}
                                .get(model_type, "XLMRobertaModel")],
              "model_type": model_type,
              "hidden_size": c["E"],
              "num_hidden_layers": c["L"], "num_attention_heads": c["H"],
              "intermediate_size": c["F"], "hidden_act": "gelu", "layer_norm_eps": 1e-5,
              "max_position_embeddings": POSITIONS, "type_vocab_size": 1,
              "vocab_size": vocab_size, "pad_token_id": 1,
              "bos_token_id": 5 if model_type == "camembert" else 0,
              "eos_token_id": 6 if model_type == "camembert" else 2,
              "position_embedding_type": "absolute"}
    if labels:
        config["id2label"] = {str(i): l for i, l in enumerate(labels)}
        config["label2id"] = {l: i for i, l in enumerate(labels)}
        if c.get("activation"):
            config["sentence_transformers"] = {"activation_fn": c["activation"],
                                               "version": "4.1.0"}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    return c, w


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tokenizer = os.path.join(folder, "tokenizer.json")
    if c["form"] == "bpe":
        content, size = bpe_tokenizer_json()
    else:
        vocab = vocabulary()
        if c["form"] == "camembert":
            vocab = camembert_vocabulary(vocab)
        content, size = tokenizer_json(vocab, c["form"]), len(vocab)
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c, w = checkpoint(c, rng, folder, size)
    labels = c.get("labels")
    texts = reference_ids(tokenizer, [{"id": i, "a": t} for i, t in TEXTS], MAX_TOKENS,
                          strip=not labels)
    pairs = reference_ids(tokenizer, [{"id": i, "a": a, "b": b} for i, a, b in PAIRS],
                          MAX_TOKENS, strip=not labels)
    assert c["form"] == "bpe" or any(LEFT_OUT in r["a"] and 3 in r["input_ids"]
                                     for r in texts), "no <unk>"
    assert any(r["full_length"] > MAX_TOKENS for r in texts), "no text is cut"

    def forward(row):
        h = bert(c, w, row["input_ids"], offset=2)   # padding_idx 1 + 1; type 0 everywhere
        out = {k: row[k] for k in ("id", "a", "b", "input_ids", "token_type_ids", "tokens")
               if k in row}
        if labels:
            x = torch.tanh(h[0] @ w["classifier.dense.weight"].T + w["classifier.dense.bias"])
            logits = x @ w["classifier.out_proj.weight"].T + w["classifier.out_proj.bias"]
            out["logits"] = [float(f"{v:.10g}") for v in logits.tolist()]
            out["scores"] = [float(f"{v:.10g}") for v in scores(logits, c).tolist()]
            out["label"] = labels[int(torch.argmax(logits))]
        else:
            mean = h.mean(0)
            out["last_hidden_state"] = [[float(f"{v:.8g}") for v in r] for r in h.tolist()]
            out["pooled"] = [float(f"{v:.10g}") for v in (mean / mean.norm()).tolist()]
        return out

    json.dump([forward(r) for r in texts], open(os.path.join(folder, "texts.json"), "w"),
              separators=(",", ":"), ensure_ascii=False)
    json.dump([forward(r) for r in pairs], open(os.path.join(folder, "pairs.json"), "w"),
              separators=(",", ":"), ensure_ascii=False)
    if not labels:
        write_sentence_transformers(folder, c["E"])
    print(f"{folder}: L={c['L']} E={c['E']} {c['dtype']}, vocabulary {size}, "
          f"{len(texts)} texts, {len(pairs)} pairs, {c['form']} post-processor")


CASES = [
    dict(name="xlmr-embedding", L=2, E=32, H=4, F=64, dtype="BF16", form="template"),
    dict(name="xlmr-3-labels", L=2, E=32, H=4, F=64, dtype="F32", form="roberta",
         labels=["negative", "neutral", "positive"], problem_type=None, activation=None),
    dict(name="xlmr-cross-encoder-1-label", L=2, E=48, H=6, F=96, dtype="F16", form="template",
         labels=["LABEL_0"], problem_type=None,
         activation="torch.nn.modules.activation.Identity"),
    dict(name="roberta-bpe-embedding", L=2, E=32, H=4, F=64, dtype="F16", form="bpe"),
    dict(name="camembert-embedding", L=2, E=32, H=4, F=64, dtype="F32", form="camembert"),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261123 + n)
