#!/usr/bin/python3
"""Late-chunking references (Günther et al. 2024, arXiv:2409.04701): each document tokenized
whole, its token states computed in float64 as jina-ai/late-chunking's `_embed_with_overlap`
computes them for a document longer than the model's window (raw slices of the document's ids,
range(0, N, M - overlap), every window after the first losing its first `overlap` states, the
rest concatenated), then each chunk's vector the mean of its span's states
(`chunked_pooling`), normalized as the folder's Normalize module does.

Spans, written here apart from the job's code: the text's tokens (the non-special ones) cut into
runs of C, or into runs of whole sentences of at most C tokens (a longer sentence cut into runs of
C); a sentence ends at a token whose text ends in . ! ? 。 ！ ？ and is followed by a gap before
the next token's start (or is the text's last). The first span also pools the leading special
token, the last the closing one, as the paper's section 4.1 says.

Cases (the folders are read, not written):
  - minilm: the real all-MiniLM-L6-v2 of ../shared/models (BERT), windows of 128, overlap 32,
    spans of 48 tokens and of sentences up to 64;
  - modernbert: the random modernbert-cases/modernbert-embedding folder (BF16, sliding-window
    layers), windows of its 40 positions, overlap 8, spans of 12 tokens and of sentences up to 16.

Ids and offsets come from Hugging Face's Rust tokenizer (jobs/samples/token_spans.js on npm's
`tokenizers` 0.13.3 in /tmp/tok13).

Usage: /usr/bin/python3 jobs/samples/make_late_chunking_cases.py src/test/resources/late-chunking
"""
import json, os, subprocess, sys, tempfile
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from make_bert_cases import bert  # noqa: E402
from make_modernbert_cases import modernbert  # noqa: E402

MARKS = set(".!?。！？")
DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16}


def read_safetensors(path):
    """Every tensor of a .safetensors file, as float64 torch tensors (BF16 widened by bits)."""
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        data = raw[8 + n + a:8 + n + b]
        if t["dtype"] == "BF16":
            values = (np.frombuffer(data, np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(data, DTYPES[t["dtype"]])
        out[name] = torch.tensor(values.astype(np.float64).reshape(t["shape"]))
    return out


def tokenize(folder, docs):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump([[d["id"], d["text"]] for d in docs], f)
    out = subprocess.run(["node", os.path.join(HERE, "token_spans.js"),
                          os.path.join(folder, "tokenizer.json"), "1000000", "-1", f.name],
                         env=dict(os.environ, NODE_PATH="/tmp/tok13/node_modules"),
                         check=True, capture_output=True, text=True).stdout
    os.unlink(f.name)
    return [d["windows"][0] for d in json.loads(out)]


def states(forward, ids, m, overlap):
    """jina's _embed_with_overlap: (N, E) float64."""
    n = len(ids)
    starts = range(0, n, m - overlap) if n > m else [0]
    parts = []
    for start in starts:
        out = forward(ids[start:min(start + m, n)])
        parts.append(out[overlap:] if start > 0 else out)
    whole = torch.cat(parts)
    assert whole.shape[0] == n, (whole.shape, n)
    return whole


def runs(text, enc, c, rule):
    """[from, to) runs of the text's token positions."""
    special, offsets = enc["special"], enc["offsets"]
    text_pos = [t for t in range(len(special)) if not special[t]]
    if not text_pos:
        return []
    first, last = text_pos[0], text_pos[-1] + 1
    if rule == "tokens":
        return [(a, min(a + c, last)) for a in range(first, last, c)]
    points = list(text)   # code points
    sentences, start = [], first
    for t in range(first, last):
        end = offsets[t][1]
        is_end = t == last - 1 or (end > offsets[t][0] and points[end - 1] in MARKS
                                    and offsets[t + 1][0] > end)
        if is_end:
            sentences.append((start, t + 1))
            start = t + 1
    out, cur = [], None
    for a, b in sentences:
        if cur is not None and b - cur[0] > c:
            out.append(cur)
            cur = None
        if cur is None:
            while b - a > c:
                out.append((a, a + c))
                a += c
            cur = (a, b)
        else:
            cur = (cur[0], b)
    if cur is not None:
        out.append(cur)
    return out


def chunks(text, enc, h, c, rule):
    n = len(enc["ids"])
    rs = runs(text, enc, c, rule)
    out = []
    if not rs:
        spans = [(0, n, None)]
    else:
        spans = [(0 if i == 0 else a, n if i == len(rs) - 1 else b, (a, b))
                 for i, (a, b) in enumerate(rs)]
    for i, (a, b, run) in enumerate(spans):
        v = h[a:b].mean(0)
        v = v / v.norm()
        start, end = (0, 0) if run is None else (enc["offsets"][run[0]][0],
                                                 enc["offsets"][run[1] - 1][1])
        out.append({"chunk": i, "start": start, "end": end, "ids": enc["ids"][a:b],
                    "vector": [float(x) for x in v]})
    return out


def case(name, folder, docs, forward, m, overlap, settings, out_dir):
    encs = tokenize(folder, docs)
    written = []
    for d, enc in zip(docs, encs):
        h = states(forward, enc["ids"], m, overlap)
        for rule, c in settings:
            written.append({"id": d["id"], "rule": rule, "chunk_tokens": c,
                            "chunks": chunks(d["text"], enc, h, c, rule)})
    texts = [{"id": d["id"], "text": d["text"]} for d in docs]
    json.dump({"folder": os.path.relpath(folder, ROOT), "max_tokens": m, "overlap": overlap,
               "texts": texts, "cases": written},
              open(os.path.join(out_dir, name + ".json"), "w"))
    print(name, [(w["id"], w["rule"], len(w["chunks"])) for w in written])


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    source = json.load(open(os.path.join(ROOT, "src/test/resources/chunks/minilm-256-32.json")))
    texts = {d["id"]: d["text"] for d in source}
    minilm = os.path.join(ROOT, "..", "shared", "models", "all-MiniLM-L6-v2")
    w = read_safetensors(os.path.join(minilm, "model.safetensors"))
    w = {k[len("bert."):] if k.startswith("bert.") else k: v for k, v in w.items()}
    cfg = json.load(open(os.path.join(minilm, "config.json")))
    c = {"H": cfg["num_attention_heads"], "E": cfg["hidden_size"],
         "L": cfg["num_hidden_layers"], "eps": cfg["layer_norm_eps"], "act": cfg["hidden_act"]}
    docs = [{"id": i, "text": texts[i]} for i in ("short", "empty", "doc-1k")]
    case("minilm", minilm, docs, lambda ids: bert(c, w, ids), 128, 32,
         [("tokens", 48), ("sentences", 64)], out_dir)

    folder = os.path.join(ROOT, "src/test/resources/modernbert-cases/modernbert-embedding")
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    cfg = json.load(open(os.path.join(folder, "config.json")))
    c = {"H": cfg["num_attention_heads"], "E": cfg["hidden_size"],
         "L": cfg["num_hidden_layers"], "eps": cfg["norm_eps"], "act": "gelu",
         "every": cfg["global_attn_every_n_layers"], "local_attention": cfg["local_attention"],
         "global_theta": cfg["global_rope_theta"], "local_theta": cfg["local_rope_theta"]}
    docs = [{"id": "short", "text": texts["short"]},
            {"id": "long", "text": texts["doc-1k"][:400]}]
    case("modernbert", folder, docs, lambda ids: modernbert(c, w, ids), 40, 8,
         [("tokens", 12), ("sentences", 16)], out_dir)


if __name__ == "__main__":
    main(sys.argv[1])
