#!/usr/bin/python3
"""Golden DeBERTa-v2/v3 folders: random checkpoints saved as Hugging Face saves them, with the
SentencePiece-Unigram tokenizer.json that transformers' DebertaV2Converter writes
(`[PAD] [CLS] [SEP] [UNK]` at ids 0 to 3, `[MASK]` last; normalizer Strip, then NFKC where the
Hub's files carry SentencePiece's precompiled NFKC map, then runs of spaces collapsed;
pre-tokenizer a Sequence of Metaspace, after Punctuation where `split_by_punct`;
`[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]` with type 1 on B):

  - deberta-v3-embedding: DebertaV2Model, F32, deberta-v3-base's attention (relative_attention,
    share_att_key, pos_att_type "p2c|c2p" as a string, norm_rel_ebd layer_norm, no absolute
    positions, no token types) with position_buckets 16 and max_relative_positions -1 (so the
    log buckets run up to max_position_embeddings), and the position table deberta-v3-base's
    own checkpoint keeps though its embeddings never add it (transformers ignores it on load),
    a sentence-transformers pipeline (mean pooling, Normalize): texts;
  - deberta-v3-nli: DebertaV2ForSequenceClassification (`deberta.` prefix, ContextPooler
    `pooler.dense` with pooler_hidden_act gelu, `classifier`), F32, pos_att_type as a list,
    max_relative_positions 24 (distances past it share the last buckets), labels
    contradiction, entailment, neutral as the NLI cross-encoders: texts and pairs;
  - deberta-v2-reranker: one label, F16, DeBERTa-v2's older form: separate pos_key_proj and
    pos_query_proj (share_att_key false), no buckets (position_buckets -1: distances clamped at
    max_relative_positions 12), no norm of the relative embeddings, absolute positions
    (position_biased_input) and two token types, split_by_punct, a CrossEncoder's Sigmoid:
    texts and pairs;
  - log-buckets.json: make_log_bucket_position of every distance up to 1,100 either way, for
    deberta-v3's 256 buckets and 512 positions and other forms.

The reference outputs come from a float64 port of modeling_deberta_v2.py: embeddings word (+
position) (+ token type), LayerNorm; per layer DisentangledSelfAttention: scores
(q·kᵀ + c2p + p2c) / √(D·factor), factor 1 + the position terms, where c2p[i, j] =
q_i · posK[clamp(r(i − j) + S)] and p2c[i, j] = k_j · posQ[clamp(−r(j − i) + S)] over the
(normalized) relative embeddings' 2S rows projected by the layer's key and query projections (or
pos_key_proj, pos_query_proj), r the log bucket of make_log_bucket_position computed in float32
as torch computes it; then BERT's post-norm output, intermediate and output. ContextPooler:
gelu(dense(h[0])), then classifier.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_deberta_cases.py src/test/resources/deberta-cases
"""
import json, math, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (PAIRS, TEXTS, case_folder, gelu, layer_norm, store,  # noqa: E402
                          write_classifier_rows, write_texts)
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402
from make_xlmr_cases import vocabulary  # noqa: E402

MAX_TOKENS = 48
POSITIONS = 64
EPS = 1e-7
SPECIALS = ["[PAD]", "[CLS]", "[SEP]", "[UNK]"]


def tokenizer_json(vocab, split_by_punct):
    """DebertaV2Converter's tokenizer.json for this vocabulary ([MASK] its last row)."""
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for i, t in list(enumerate(SPECIALS)) + [(len(vocab) - 1, "[MASK]")]]
    tok = lambda t, type_id=0: {"SpecialToken": {"id": t, "type_id": type_id}}
    seq = lambda s, type_id=0: {"Sequence": {"id": s, "type_id": type_id}}
    metaspace = {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Strip", "strip_left": True, "strip_right": True},
                {"type": "NFKC"},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers":
                              ([{"type": "Punctuation", "behavior": "Isolated"}]
                               if split_by_punct else []) + [metaspace]},
            "post_processor": {"type": "TemplateProcessing",
                               "single": [tok("[CLS]"), seq("A"), tok("[SEP]")],
                               "pair": [tok("[CLS]"), seq("A"), tok("[SEP]"), seq("B", 1),
                                        tok("[SEP]", 1)],
                               "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]}
                                                  for t, i in (("[CLS]", 1), ("[SEP]", 2))}},
            "decoder": metaspace,
            "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab}}


def write_tokenizer(folder, split_by_punct):
    """tokenizer.json and tokenizer_config.json; returns the tokenizer's path and V."""
    texts = [t for _, t in TEXTS] + [p for row in PAIRS for p in row[1:]]
    pieces = vocabulary(texts)[4:-1]            # XLM-R's pieces without its specials
    vocab = [[t, 0.0] for t in SPECIALS] + pieces + [["[MASK]", 0.0]]
    path = os.path.join(folder, "tokenizer.json")
    json.dump(tokenizer_json(vocab, split_by_punct), open(path, "w", encoding="utf-8"),
              ensure_ascii=False)
    json.dump({"bos_token": "[CLS]", "cls_token": "[CLS]", "do_lower_case": False,
               "eos_token": "[SEP]", "mask_token": "[MASK]", "model_max_length": 512,
               "pad_token": "[PAD]", "sep_token": "[SEP]", "split_by_punct": split_by_punct,
               "tokenizer_class": "DebertaV2Tokenizer", "unk_token": "[UNK]",
               "vocab_type": "spm"},
              open(os.path.join(folder, "tokenizer_config.json"), "w"), indent=2)
    return path, len(vocab)


def attention_form(c):
    """What DebertaV2Config and the attention read off config.json: the position terms, the
    relative span S (position_buckets, else max_relative_positions, else P)."""
    terms = c["pos_att_type"]
    terms = [t.strip() for t in terms.lower().split("|")] if isinstance(terms, str) else terms
    max_relative = c["max_relative_positions"] if c["max_relative_positions"] >= 1 else POSITIONS
    span = c["position_buckets"] if c["position_buckets"] > 0 else max_relative
    return terms, max_relative, span


def random_deberta(c, rng):
    E, F, V = c["E"], c["F"], c["V"]
    terms, _, span = attention_form(c)
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embeddings.word_embeddings.weight": normal(V, E, std=0.5),
         "embeddings.LayerNorm.weight": 1 + normal(E, std=0.1),
         "embeddings.LayerNorm.bias": normal(E, std=0.1),
         "encoder.rel_embeddings.weight": normal(2 * span, E, std=1.0)}
    if c["position_biased_input"] or c.get("unused_positions"):
        t["embeddings.position_embeddings.weight"] = normal(POSITIONS, E, std=0.3)
    if c["type_vocab_size"] > 0:
        t["embeddings.token_type_embeddings.weight"] = normal(c["type_vocab_size"], E, std=0.3)
    if c["norm_rel_ebd"] == "layer_norm":
        t["encoder.LayerNorm.weight"] = 1 + normal(E, std=0.1)
        t["encoder.LayerNorm.bias"] = normal(E, std=0.1)
    projections = ["query_proj", "key_proj", "value_proj"]
    if not c["share_att_key"]:
        projections += ["pos_key_proj"] * ("c2p" in terms) + ["pos_query_proj"] * ("p2c" in terms)
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        for n in projections:
            t[p + f"attention.self.{n}.weight"] = normal(E, E, std=1.8 / np.sqrt(E))
            t[p + f"attention.self.{n}.bias"] = normal(E, std=0.2)
        for n, rows, cols in (("attention.output.dense", E, E), ("intermediate.dense", F, E),
                              ("output.dense", E, F)):
            t[p + n + ".weight"] = normal(rows, cols, std=1 / np.sqrt(cols))
            t[p + n + ".bias"] = normal(rows, std=0.1)
        for n in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + n + ".weight"] = 1 + normal(E, std=0.1)
            t[p + n + ".bias"] = normal(E, std=0.1)
    return t


def log_bucket(relative, bucket_size, max_position):
    """make_log_bucket_position on a LongTensor of relative positions, in float32 as torch
    computes it there."""
    sign = torch.sign(relative)
    mid = bucket_size // 2
    near = (relative < mid) & (relative > -mid)
    absolute = torch.where(near, torch.tensor(mid - 1).type_as(relative), torch.abs(relative))
    log_pos = torch.ceil(torch.log(absolute / mid)
                         / torch.log(torch.tensor((max_position - 1) / mid))
                         * (mid - 1)) + mid
    return torch.where(absolute <= mid, relative.type_as(log_pos), log_pos * sign)


def relative_positions(T, c):
    """build_relative_position: r[i, j] = i − j, log-bucketed when buckets and a maximum are
    set."""
    _, max_relative, _ = attention_form(c)
    ids = torch.arange(T)
    r = ids[:, None] - ids[None, :]
    if c["position_buckets"] > 0 and max_relative > 0:
        r = log_bucket(r, c["position_buckets"], max_relative)
    return r.to(torch.long)


def deberta(c, w, ids, types):
    """Last hidden states (T, E) of one unpadded sequence, float64."""
    T, H, E = len(ids), c["H"], c["E"]
    D = E // H
    terms, _, span = attention_form(c)
    x = w["embeddings.word_embeddings.weight"][torch.tensor(ids)]
    if c["position_biased_input"]:
        x = x + w["embeddings.position_embeddings.weight"][:T]
    if c["type_vocab_size"] > 0:
        x = x + w["embeddings.token_type_embeddings.weight"][torch.tensor(types)]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], EPS)
    rel = w["encoder.rel_embeddings.weight"][:2 * span]
    if c["norm_rel_ebd"] == "layer_norm":
        rel = layer_norm(rel, w["encoder.LayerNorm.weight"], w["encoder.LayerNorm.bias"], EPS)
    r = relative_positions(T, c)
    factor = 1 + len([t for t in terms if t in ("c2p", "p2c")])
    scale = math.sqrt(D * factor)
    heads = lambda v: v.view(-1, H, D).transpose(0, 1)          # (H, rows, D)
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        lin = lambda v, n: v @ w[n + ".weight"].T + w[n + ".bias"]
        a = p + "attention.self."
        q, k, v = (heads(lin(x, a + n)) for n in ("query_proj", "key_proj", "value_proj"))
        scores = q @ k.transpose(1, 2) / scale
        shared = c["share_att_key"]
        if "c2p" in terms:
            pos_k = heads(lin(rel, a + ("key_proj" if shared else "pos_key_proj")))
            index = torch.clamp(r + span, 0, 2 * span - 1).expand(H, T, T)
            scores = scores + torch.gather(q @ pos_k.transpose(1, 2), -1, index) / scale
        if "p2c" in terms:
            pos_q = heads(lin(rel, a + ("query_proj" if shared else "pos_query_proj")))
            index = torch.clamp(-r + span, 0, 2 * span - 1).expand(H, T, T)
            scores = scores + torch.gather(k @ pos_q.transpose(1, 2), -1,
                                           index).transpose(1, 2) / scale
        context = (torch.softmax(scores, -1) @ v).transpose(0, 1).reshape(T, E)
        x = layer_norm(lin(context, p + "attention.output.dense") + x,
                       w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], EPS)
        ffn = lin(gelu(lin(x, p + "intermediate.dense")), p + "output.dense")
        x = layer_norm(ffn + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"],
                       EPS)
    return x


def config_json(c, architecture):
    """config.json as transformers 4.44 saves a DeBERTa-v2 model of these settings."""
    return {"architectures": [architecture],
            "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1, "hidden_size": c["E"], "initializer_range": 0.02,
            "intermediate_size": c["F"], "layer_norm_eps": EPS,
            "max_position_embeddings": POSITIONS,
            "max_relative_positions": c["max_relative_positions"], "model_type": "deberta-v2",
            "norm_rel_ebd": c["norm_rel_ebd"], "num_attention_heads": c["H"],
            "num_hidden_layers": c["L"], "pad_token_id": 0,
            "pooler_dropout": 0, "pooler_hidden_act": "gelu", "pooler_hidden_size": c["E"],
            "pos_att_type": c["pos_att_type"], "position_biased_input":
            c["position_biased_input"], "position_buckets": c["position_buckets"],
            "relative_attention": True, "share_att_key": c["share_att_key"],
            "torch_dtype": {"F32": "float32", "F16": "float16"}[c["dtype"]],
            "transformers_version": "4.44.2", "type_vocab_size": c["type_vocab_size"],
            "vocab_size": c["V"]}


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, c["name"])
    tokenizer, V = write_tokenizer(folder, c["split_by_punct"])
    c = dict(c, V=V)
    labels = c.get("labels")
    config = config_json(c, "DebertaV2ForSequenceClassification" if labels
                         else "DebertaV2Model")
    values = random_deberta(c, rng)
    if labels:
        tensors, w = store(values, c["dtype"], "deberta.")
        E = c["E"]
        head = {"pooler.dense.weight": rng.normal(0, 2 / np.sqrt(E), (E, E)),
                "pooler.dense.bias": rng.normal(0, 0.1, (E,)),
                "classifier.weight": rng.normal(0, 1.0, (len(labels), E)),
                "classifier.bias": rng.normal(0, 0.1, (len(labels),))}
        more, hw = store(head, c["dtype"])
        tensors.update(more)
        config.update(id2label={str(i): l for i, l in enumerate(labels)},
                      label2id={l: i for i, l in enumerate(labels)})
        if c.get("activation"):
            config["sentence_transformers"] = {"activation_fn": c["activation"],
                                               "version": "4.1.0"}
    else:
        tensors, w = store(values, c["dtype"])
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    forward = lambda ids, types: deberta(c, w, ids, types)
    if labels:
        def head_logits(h):
            pooled = gelu(h[0] @ hw["pooler.dense.weight"].T + hw["pooler.dense.bias"])
            return pooled @ hw["classifier.weight"].T + hw["classifier.bias"]
        write_classifier_rows(folder, tokenizer, MAX_TOKENS, forward, head_logits, c)
    else:
        write_sentence_transformers(folder, c["E"], 512)
        write_texts(folder, tokenizer, MAX_TOKENS, forward)
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} {c['dtype']}, vocabulary {V}, "
          f"{'labels ' + str(labels) if labels else 'embedding'}")


V3 = dict(pos_att_type="p2c|c2p", share_att_key=True, norm_rel_ebd="layer_norm",
          position_biased_input=False, type_vocab_size=0, split_by_punct=False)
CASES = [
    dict(V3, name="deberta-v3-embedding", L=2, E=32, H=4, F=64, dtype="F32",
         position_buckets=16, max_relative_positions=-1, unused_positions=True),
    dict(V3, name="deberta-v3-nli", L=2, E=24, H=2, F=48, dtype="F32", position_buckets=16,
         max_relative_positions=24, pos_att_type=["p2c", "c2p"],
         labels=["contradiction", "entailment", "neutral"], problem_type=None, activation=None),
    dict(name="deberta-v2-reranker", L=2, E=32, H=4, F=64, dtype="F16",
         pos_att_type="c2p|p2c", share_att_key=False, norm_rel_ebd="none",
         position_biased_input=True, type_vocab_size=2, split_by_punct=True,
         position_buckets=-1, max_relative_positions=12, labels=["LABEL_0"], problem_type=None,
         activation="torch.nn.modules.activation.Sigmoid"),
]

BUCKET_FORMS = [(256, 512), (256, 1024), (16, 64), (16, 24), (8, 20)]
REACH = 1100


def write_buckets(out):
    """log-buckets.json: make_log_bucket_position of every distance −REACH..REACH for
    deberta-v3's (256 buckets, 512 positions), a longer maximum and the cases' forms."""
    rows = [{"buckets": b, "max_relative": m, "first": -REACH,
             "bucket": log_bucket(torch.arange(-REACH, REACH + 1), b, m).to(torch.long).tolist()}
            for b, m in BUCKET_FORMS]
    json.dump(rows, open(os.path.join(out, "log-buckets.json"), "w"), separators=(",", ":"))


if __name__ == "__main__":
    out = sys.argv[1]
    for seed, c in enumerate(CASES):
        write_case(c, out, 700 + seed)
    write_buckets(out)
