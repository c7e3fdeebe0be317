#!/usr/bin/python3
"""Golden cases for BERT-family model folders the project has never seen, beside the real
all-MiniLM-L6-v2 of ../shared/models: random BERT checkpoints of other shapes, written as Hugging
Face folders (whole, `bert.`-prefixed with a task head, sharded; F32, F16, BF16; CLS or mean
pooling; with and without Normalize and max_seq_length), with what independent implementations
give on texts the project has never seen:
  - token ids: Hugging Face's transformers.js tokenizer on all-MiniLM-L6-v2's tokenizer.json, cut
    as sentence-transformers cuts (the text is cut, the closing [SEP] stays);
  - last hidden states and sentence vectors: BERT written out op by op in PyTorch, float64.

Usage (needs Debian's python3-torch and Node.js):
  mkdir -p /tmp/tok && cp ../shared/tools/realmodel/package.json /tmp/tok \
    && (cd /tmp/tok && npm install --ignore-scripts)
  /usr/bin/python3 jobs/samples/make_bert_cases.py /tmp/tok src/test/resources/bert-cases
Each case folder lacks tokenizer.json (the tests take all-MiniLM-L6-v2's from ../shared/models).
"""
import json, os, shutil, struct, subprocess, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MINILM = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "models", "all-MiniLM-L6-v2"))
GPL = open("/usr/share/common-licenses/GPL-3").read()
paragraphs = [p.replace("\n", " ").strip() for p in GPL.split("\n\n") if p.strip()]

TEXTS = [
    ("t00", "The quick brown fox jumps over the lazy dog."),
    ("t01", "Crème brûlée, naïve café and a façade: accents are stripped, letters kept."),
    ("t02", "東京は日本の首都です。北京是中国的首都。서울은 한국의 수도입니다."),
    ("t03", ""),
    ("t04", "   \t  "),
    ("t05", "x"),
    ("t06", "Spark partitions the rows; each executor gets the weights once, by broadcast!"),
    ("t07", "Numbers 3.14159, 2,718 and 1e-12; e-mail: someone@example.org; URL https://x.y/z?q=1"),
    ("t08", "UPPER lower MiXeD CaSe WordPiece ##pieces [CLS] [SEP] [MASK] tokens"),
    ("t09", " ".join(paragraphs[2:6])),                  # about 300 tokens
    ("t10", " ".join(paragraphs[6:20])),                 # longer than 512 tokens
    ("t11", " ".join(paragraphs[20:24])),
]

CASES = [
    # name, layers, width, heads, ffn, hidden_act, eps, positions, types, layout, dtype,
    # pooling (None: no sentence-transformers files), normalize, max_seq_length
    dict(name="cls-prefixed-512", L=3, E=64, H=4, F=256, act="gelu", eps=1e-12, P=512, S=2,
         layout="prefixed", dtype="F16", pooling="cls", normalize=True, max_seq=None),
    dict(name="mean-sharded-tanh", L=2, E=48, H=6, F=96, act="gelu_new", eps=1e-12, P=256, S=1,
         layout="sharded", dtype="F32", pooling="mean", normalize=False, max_seq=128),
    dict(name="whole-relu-deep", L=5, E=32, H=2, F=64, act="relu", eps=1e-6, P=512, S=2,
         layout="whole", dtype="BF16", pooling=None, normalize=False, max_seq=None),
]


def token_ids():
    """Full ids of every text by transformers.js (no truncation; cut per case below)."""
    script = os.path.join(out, "ids.mjs")
    with open(script, "w") as f:
        f.write("""import { AutoTokenizer, env } from '@huggingface/transformers';
import fs from 'fs'; import path from 'path';
const [dir, textsPath] = process.argv.slice(2);
env.allowRemoteModels = false; env.localModelPath = path.dirname(path.resolve(dir));
const tok = await AutoTokenizer.from_pretrained(path.basename(dir));
const texts = JSON.parse(fs.readFileSync(textsPath));
console.log(JSON.stringify(texts.map((t) => Array.from(tok(t).input_ids.data, Number))));
""")
    texts_json = os.path.join(out, "texts.json")
    json.dump([t for _, t in TEXTS], open(texts_json, "w"))
    env = dict(os.environ, NODE_PATH=os.path.join(node_modules_dir, "node_modules"))
    shutil.copy(script, os.path.join(node_modules_dir, "ids.mjs"))
    ids = json.loads(subprocess.check_output(
        ["node", os.path.join(node_modules_dir, "ids.mjs"), MINILM, texts_json], env=env))
    os.remove(script)
    os.remove(texts_json)
    return ids


def cut(ids, max_tokens):
    return ids if len(ids) <= max_tokens else ids[:max_tokens - 1] + [ids[-1]]


def random_bert(c, rng):
    E, F, V = c["E"], c["F"], c.get("V", 30522)
    t = {}
    def normal(*shape, std):
        return rng.normal(0.0, std, size=shape)
    t["embeddings.word_embeddings.weight"] = normal(V, E, std=0.5)
    t["embeddings.position_embeddings.weight"] = normal(c["P"], E, std=0.3)
    t["embeddings.token_type_embeddings.weight"] = normal(c["S"], E, std=0.3)
    t["embeddings.LayerNorm.weight"] = 1 + normal(E, std=0.1)
    t["embeddings.LayerNorm.bias"] = normal(E, std=0.1)
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        for name in ("query", "key", "value"):
            t[p + f"attention.self.{name}.weight"] = normal(E, E, std=0.6 / np.sqrt(E) * 3)
            t[p + f"attention.self.{name}.bias"] = normal(E, std=0.1)
        t[p + "attention.output.dense.weight"] = normal(E, E, std=1 / np.sqrt(E))
        t[p + "attention.output.dense.bias"] = normal(E, std=0.1)
        t[p + "attention.output.LayerNorm.weight"] = 1 + normal(E, std=0.1)
        t[p + "attention.output.LayerNorm.bias"] = normal(E, std=0.1)
        t[p + "intermediate.dense.weight"] = normal(F, E, std=1 / np.sqrt(E))
        t[p + "intermediate.dense.bias"] = normal(F, std=0.1)
        t[p + "output.dense.weight"] = normal(E, F, std=1 / np.sqrt(F))
        t[p + "output.dense.bias"] = normal(E, std=0.1)
        t[p + "output.LayerNorm.weight"] = 1 + normal(E, std=0.1)
        t[p + "output.LayerNorm.bias"] = normal(E, std=0.1)
    t["pooler.dense.weight"] = normal(E, E, std=0.05)
    t["pooler.dense.bias"] = normal(E, std=0.05)
    return t


def stored(values, dtype):
    """The values as the file stores them, and those values back as float64."""
    a = torch.tensor(values, dtype=torch.float32)
    if dtype == "F16":
        a = a.to(torch.float16)
    elif dtype == "BF16":
        a = a.to(torch.bfloat16)
    raw = a.view(torch.int16).numpy().tobytes() if dtype != "F32" else a.numpy().tobytes()
    return raw, a.to(torch.float64)


def write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def write_sentence_transformers(folder, width, max_seq=None):
    """A sentence-transformers pipeline: modules.json (Transformer, mean Pooling, Normalize),
    1_Pooling/config.json and, with max_seq, sentence_bert_config.json."""
    json.dump([{"idx": 0, "name": "0", "path": "", "type":
                "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type":
                "sentence_transformers.models.Pooling"},
               {"idx": 2, "name": "2", "path": "2_Normalize", "type":
                "sentence_transformers.models.Normalize"}],
              open(os.path.join(folder, "modules.json"), "w"), indent=2)
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    json.dump({"word_embedding_dimension": width, "pooling_mode_cls_token": False,
               "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False},
              open(os.path.join(folder, "1_Pooling", "config.json"), "w"), indent=2)
    if max_seq:
        json.dump({"max_seq_length": max_seq, "do_lower_case": False},
                  open(os.path.join(folder, "sentence_bert_config.json"), "w"), indent=2)


def layer_norm(x, g, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * g + b


def act(name, x):
    if name == "gelu":
        return 0.5 * x * (1 + torch.erf(x / np.sqrt(2)))
    if name == "gelu_new":
        return 0.5 * x * (1 + torch.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return torch.relu(x)


def bert(c, w, ids, types=None, offset=0, keys=None):
    """Last hidden states (T, E) of one unpadded sequence, float64; token types 0 unless given.
    offset: the position row of the first token (RoBERTa's padding_idx + 1, as its
    create_position_ids_from_input_ids gives for a sequence without padding); keys: only the
    first `keys` tokens are attended to (an attention mask of 0 on the rest, whose states are
    still computed), all when None."""
    T, H, E = len(ids), c["H"], c["E"]
    D = E // H
    ids = torch.tensor(ids)
    types = torch.tensor(types if types is not None else [0] * T)
    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][offset:offset + T]
         + w["embeddings.token_type_embeddings.weight"][types])
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], c["eps"])
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        lin = lambda v, n: v @ w[p + n + ".weight"].T + w[p + n + ".bias"]
        q = lin(x, "attention.self.query").view(T, H, D).transpose(0, 1)
        k = lin(x, "attention.self.key").view(T, H, D).transpose(0, 1)
        v = lin(x, "attention.self.value").view(T, H, D).transpose(0, 1)
        s = q @ k.transpose(1, 2) / np.sqrt(D)
        if keys is not None:
            s[..., keys:] = float("-inf")
        a = torch.softmax(s, dim=-1)
        ctx = (a @ v).transpose(0, 1).reshape(T, E)
        x = layer_norm(x + lin(ctx, "attention.output.dense"),
                       w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], c["eps"])
        h = act(c["act"], lin(x, "intermediate.dense"))
        x = layer_norm(x + lin(h, "output.dense"), w[p + "output.LayerNorm.weight"],
                       w[p + "output.LayerNorm.bias"], c["eps"])
    return x


def write_case(c, full_ids, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tensors, w = {}, {}
    for name, values in random_bert(c, rng).items():
        raw, back = stored(values, c["dtype"])
        tensors[name] = (c["dtype"], values.shape, raw)
        w[name] = back
    if c["layout"] == "prefixed":          # as BertForSequenceClassification saves it
        tensors = {"bert." + k: v for k, v in tensors.items()}
        for name, shape in (("classifier.weight", (2, c["E"])), ("classifier.bias", (2,))):
            raw, _ = stored(rng.normal(0, 0.1, size=shape), c["dtype"])
            tensors[name] = (c["dtype"], shape, raw)
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    elif c["layout"] == "sharded":
        names = sorted(tensors)
        half = len(names) // 2
        weight_map = {}
        for s, part in enumerate((names[:half], names[half:])):
            file = f"model-{s + 1:05d}-of-00002.safetensors"
            write_safetensors(os.path.join(folder, file), {n: tensors[n] for n in part})
            weight_map.update({n: file for n in part})
        json.dump({"metadata": {}, "weight_map": weight_map},
                  open(os.path.join(folder, "model.safetensors.index.json"), "w"), indent=1)
    else:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    json.dump({"architectures": ["BertModel"], "model_type": "bert", "hidden_size": c["E"],
               "num_hidden_layers": c["L"], "num_attention_heads": c["H"],
               "intermediate_size": c["F"], "hidden_act": c["act"], "layer_norm_eps": c["eps"],
               "max_position_embeddings": c["P"], "type_vocab_size": c["S"], "vocab_size": 30522,
               "pad_token_id": 0, "position_embedding_type": "absolute"},
              open(os.path.join(folder, "config.json"), "w"), indent=2)
    if c["pooling"]:
        modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                   {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
        if c["normalize"]:
            modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                            "type": "sentence_transformers.models.Normalize"})
        json.dump(modules, open(os.path.join(folder, "modules.json"), "w"), indent=2)
        os.makedirs(os.path.join(folder, "1_Pooling"))
        json.dump({"word_embedding_dimension": c["E"], "pooling_mode_cls_token": c["pooling"] == "cls",
                   "pooling_mode_mean_tokens": c["pooling"] == "mean", "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False},
                  open(os.path.join(folder, "1_Pooling", "config.json"), "w"), indent=2)
        if c["max_seq"]:
            json.dump({"max_seq_length": c["max_seq"], "do_lower_case": False},
                      open(os.path.join(folder, "sentence_bert_config.json"), "w"), indent=2)
    max_tokens = min(c["max_seq"] or c["P"], c["P"])
    rows = []
    for (tid, text), ids in zip(TEXTS, full_ids):
        ids = cut(ids, max_tokens)
        h = bert(c, w, ids)
        s = h[0] if c["pooling"] == "cls" else h.mean(0)
        if c["normalize"]:
            s = s / s.norm()
        rows.append({"id": tid, "text": text, "input_ids": ids, "truncated": len(ids) < len(full_ids[TEXTS.index((tid, text))]),
                     "last_hidden_state": [[float(f"{v:.8g}") for v in r] for r in h.tolist()],
                     "sentence_embedding": [float(f"{v:.9g}") for v in s.tolist()]})
    json.dump(rows, open(os.path.join(folder, "expected.json"), "w"), separators=(",", ":"))
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} {c['act']} {c['layout']} {c['dtype']}, "
          f"{len(rows)} texts, max {max_tokens} tokens, {sum(r['truncated'] for r in rows)} cut")


if __name__ == "__main__":   # jobs/samples/make_classifier_cases.py imports the BERT above
    node_modules_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    ids = token_ids()
    print("token counts:", [len(i) for i in ids])
    for n, case in enumerate(CASES):
        write_case(case, ids, 20261123 + n)
