#!/usr/bin/python3
"""Golden cases for token classifiers (issue 33): random checkpoints saved as Hugging Face saves
BertForTokenClassification (`bert.` prefix, no pooler, `classifier.weight` / `.bias`, F16, with
all-MiniLM-L6-v2's real WordPiece tokenizer.json, 30,522 pieces),
XLMRobertaForTokenClassification (`roberta.` prefix, F32, a SentencePiece-Unigram tokenizer of
the Hub's XLM-R shape), ModernBertForTokenClassification (`model.` prefix, `head.dense`,
`head.norm` and `classifier`, every bias, F32, a byte-level BPE of ModernBERT's shape trained by
make_modernbert_cases.py, transformers 5.x config.json, a local window) and
DebertaV2ForTokenClassification (`deberta.` prefix, `classifier`, F32, deberta-v3's
disentangled attention with log buckets, a Unigram tokenizer of DebertaV2Converter's form, the
float64 port of make_deberta_cases.py), each with config.json's id2label in B-/I- form plus a
label without a prefix; and what they give texts from the licenses in /usr/share/common-licenses plus texts
with multi-piece words, emoji and accents before a word, an unknown character, spaces and
tabs, the empty string.

For each text, token labels and entities come from a float64 PyTorch port of the model and a
port of transformers' TokenClassificationPipeline (pipelines/token_classification.py:
preprocess with stride, postprocess's softmax, gather_pre_entities, aggregate,
aggregate_words, aggregate_word, group_entities, group_sub_entities,
aggregate_overlapping_entities, ignore_labels = ["O"]), for aggregation_strategy simple, first,
average and max: once cut to the folder's own limit (truncation: 128 tokens for BERT, 64 for
XLM-R, whose positions start at 2), once in windows of WINDOW tokens with
stride STRIDE (the pipeline's `stride`). Token ids, offsets (code points) and special-token
masks are Hugging Face's Rust tokenizer's (jobs/samples/token_spans.js). Random weights can put
two scores within rounding of each other; a seed whose decisions are not all clear by 5e-5 is
skipped, so float32 (whose scores are within about 1e-6 here) cannot flip a label.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_token_classifier_cases.py src/test/resources/token-cases
"""
import json, os, shutil, subprocess, sys, tempfile
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_bert_cases import (act, bert, layer_norm, random_bert, stored,  # noqa: E402
                             write_safetensors)
from make_xlmr_cases import (tokenizer_json as unigram_tokenizer_json,  # noqa: E402
                             vocabulary as unigram_vocabulary)
from make_modernbert_cases import (config_json as modernbert_config, modernbert,  # noqa: E402
                                   random_modernbert, tokenizer_json as bpe_tokenizer_json,
                                   train_bpe)
from make_deberta_cases import (POSITIONS as DEBERTA_POSITIONS, SPECIALS as  # noqa: E402
                                DEBERTA_SPECIALS, config_json as deberta_config, deberta,
                                random_deberta, tokenizer_json as deberta_tokenizer_json)

MINILM = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "models",
                                       "all-MiniLM-L6-v2", "tokenizer.json"))
LICENSES = "/usr/share/common-licenses"
LABELS = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "MISC"]
STRATEGIES = ["simple", "first", "average", "max"]
WINDOW = 24          # input.max-tokens of the chunked runs
STRIDE = 6           # input.chunk-overlap: the pipeline's stride
CLEAR = 5e-5         # the least gap between two scores a decision may rest on


def license_texts():
    """Sentences and paragraphs from license texts (nobody here wrote them)."""
    def paragraphs(name, first, count):
        text = open(os.path.join(LICENSES, name), encoding="utf-8").read()
        paras = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
        return paras[first:first + count]
    out = []
    for name, first, count in (("GPL-3", 1, 5), ("Apache-2.0", 4, 5), ("MPL-2.0", 2, 4)):
        for k, p in enumerate(paragraphs(name, first, count)):
            out.append([f"{name.lower()}-{k}", p])
    out.append(["gpl-3-preamble", " ".join(paragraphs("GPL-3", 1, 8))])   # past every limit
    return out


TEXTS = license_texts() + [
    ["accents", "Zoë 😀 met Ana-Lúcia Ferreira in Zürich, near the Bahnhofstraße."],
    ["emoji", "👍🏽👍🏽 Kraków and São Paulo signed with Mozilla Foundation."],
    ["pieces", "Unbelievably, antidisestablishmentarianism outlived Schwarzenegger's tokenizer."],
    ["unknown", "The snowman ☃ stood beside Dr. Jekyll ☃☃ in London."],
    ["spaces", "  Several   spaces\tand\ta tab before   Paris  "],
    ["empty", ""],
]


def spans(tokenizer, texts, max_tokens, stride):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts, f)
    env = dict(os.environ, NODE_PATH=os.environ.get("NODE_PATH", "/tmp/tok13/node_modules"))
    out = subprocess.run(["node", os.path.join(HERE, "token_spans.js"), tokenizer,
                          str(max_tokens), str(stride), f.name], capture_output=True,
                         text=True, env=env, check=True)
    os.unlink(f.name)
    return json.loads(out.stdout)


class Unclear(Exception):
    """Two scores a decision rests on are within CLEAR of each other."""


def argmax(scores):
    order = np.argsort(-scores, kind="stable")
    if scores[order[0]] - scores[order[1]] < CLEAR:
        raise Unclear()
    return int(order[0])


# The pipeline, written from pipelines/token_classification.py.

def gather_pre_entities(sentence, window, scores, word_aware, unk_id):
    pre = []
    for idx, token_scores in enumerate(scores):
        if window["special"][idx]:
            continue
        word = window["tokens"][idx]
        start, end = window["offsets"][idx]
        word_ref = sentence[start:end]
        if word_aware:
            is_subword = len(word) != len(word_ref)
        else:
            is_subword = start > 0 and " " not in sentence[start - 1:start + 1]
        if window["ids"][idx] == unk_id:
            is_subword = False
        pre.append({"scores": token_scores, "start": start, "end": end,
                    "is_subword": is_subword})
    return pre


def aggregate_word(entities, strategy):
    if strategy == "first":
        scores = entities[0]["scores"]
        idx = argmax(scores)
        score = scores[idx]
    elif strategy == "max":
        best = [e["scores"].max() for e in entities]
        top = int(np.argmax(best))
        for k, b in enumerate(best):   # a near tie matters when the two disagree
            if k != top and best[top] - b < CLEAR and \
                    np.argmax(entities[k]["scores"]) != np.argmax(entities[top]["scores"]):
                raise Unclear()
        scores = entities[top]["scores"]
        idx = argmax(scores)
        score = scores[idx]
    else:   # average
        scores = np.nanmean(np.stack([e["scores"] for e in entities]), axis=0)
        idx = argmax(scores)
        score = scores[idx]
    return {"entity": LABELS[idx], "score": score, "start": entities[0]["start"],
            "end": entities[-1]["end"]}


def aggregate_words(entities, strategy):
    words, group = [], None
    for entity in entities:
        if group is None:
            group = [entity]
        elif entity["is_subword"]:
            group.append(entity)
        else:
            words.append(aggregate_word(group, strategy))
            group = [entity]
    if group is not None:
        words.append(aggregate_word(group, strategy))
    return words


def get_tag(name):
    if name.startswith("B-"):
        return "B", name[2:]
    if name.startswith("I-"):
        return "I", name[2:]
    return "I", name


def group_sub_entities(entities):
    return {"entity_group": entities[0]["entity"].split("-", 1)[-1],
            "score": float(np.nanmean([e["score"] for e in entities])),
            "start": entities[0]["start"], "end": entities[-1]["end"]}


def group_entities(entities):
    groups, current = [], []
    for entity in entities:
        if not current:
            current.append(entity)
            continue
        bi, tag = get_tag(entity["entity"])
        _, last_tag = get_tag(current[-1]["entity"])
        if tag == last_tag and bi != "B":
            current.append(entity)
        else:
            groups.append(group_sub_entities(current))
            current = [entity]
    if current:
        groups.append(group_sub_entities(current))
    return groups


def aggregate(pre, strategy):
    if strategy == "simple":
        entities = []
        for p in pre:
            idx = argmax(p["scores"])
            entities.append({"entity": LABELS[idx], "score": p["scores"][idx],
                             "start": p["start"], "end": p["end"]})
    else:
        entities = aggregate_words(pre, strategy)
    return group_entities(entities)


def aggregate_overlapping_entities(entities):
    if len(entities) == 0:
        return entities
    entities = sorted(entities, key=lambda x: x["start"])
    out, previous = [], entities[0]
    for entity in entities:
        if previous["start"] <= entity["start"] < previous["end"]:
            length = entity["end"] - entity["start"]
            previous_length = previous["end"] - previous["start"]
            if length == previous_length and abs(entity["score"] - previous["score"]) < CLEAR \
                    and entity is not previous and entity["entity_group"] != \
                    previous["entity_group"]:
                raise Unclear()
            if length > previous_length or length == previous_length \
                    and entity["score"] > previous["score"]:
                previous = entity
        else:
            out.append(previous)
            previous = entity
    out.append(previous)
    return out


def postprocess(sentence, windows, all_scores, strategy, word_aware, unk_id):
    found = []
    for window, scores in zip(windows, all_scores):
        pre = gather_pre_entities(sentence, window, scores, word_aware, unk_id)
        found.extend(e for e in aggregate(pre, strategy) if e["entity_group"] != "O")
    if len(windows) > 1:
        found = aggregate_overlapping_entities(found)
    return [{"label": e["entity_group"], "start": e["start"], "end": e["end"],
             "score": float(f"{e['score']:.8g}"), "text": sentence[e["start"]:e["end"]]}
            for e in found]


# The models.

def softmax(logits):
    return torch.softmax(logits, -1).numpy()


def head_values(c, rng, values):
    """A classifier over the labels, with O as often as not so that entities end."""
    E = c["E"]
    scale = c.get("head_scale", 3)   # larger: fewer near ties where texts have many tokens
    values["classifier.weight"] = rng.normal(0.0, scale / np.sqrt(E), size=(len(LABELS), E))
    bias = rng.normal(0.0, 0.3, size=(len(LABELS),))
    bias[0] += 1.5
    values["classifier.bias"] = bias
    return values


def store(c, values, prefix, own):
    """The tensors as the file stores them (the encoder's under prefix) and back as float64."""
    tensors, w = {}, {}
    for name, v in values.items():
        raw, back = stored(v, c["dtype"])
        tensors[("" if name.startswith(own) else prefix) + name] = (c["dtype"], v.shape, raw)
        w[name] = back
    return tensors, w


def bert_model(c, rng, offset):
    """BertForTokenClassification / XLMRobertaForTokenClassification: classifier(h)."""
    values = random_bert(c, rng)
    del values["pooler.dense.weight"], values["pooler.dense.bias"]   # add_pooling_layer=False
    tensors, w = store(c, head_values(c, rng, values), c["family"] + ".", ("classifier.",))

    def scores(window):
        h = bert(c, w, window["ids"], offset=offset)
        return softmax(h @ w["classifier.weight"].T + w["classifier.bias"])
    config = {"architectures": [{"bert": "BertForTokenClassification",
                                 "roberta": "XLMRobertaForTokenClassification"}[c["family"]]],
              "model_type": {"bert": "bert", "roberta": "xlm-roberta"}[c["family"]],
              "hidden_size": c["E"], "num_hidden_layers": c["L"],
              "num_attention_heads": c["H"], "intermediate_size": c["F"], "hidden_act": "gelu",
              "layer_norm_eps": c["eps"], "max_position_embeddings": c["P"],
              "type_vocab_size": c["S"], "vocab_size": c["V"],
              "pad_token_id": 0 if c["family"] == "bert" else 1,
              "position_embedding_type": "absolute"}
    return tensors, scores, config


def modernbert_model(c, rng, ids):
    """ModernBertForTokenClassification: classifier(norm(gelu(head.dense(h)))) per token."""
    E = c["E"]
    values = random_modernbert(c, rng)
    values["head.dense.weight"] = rng.normal(0.0, 1 / np.sqrt(E), size=(E, E))
    values["head.dense.bias"] = rng.normal(0.0, 0.1, size=(E,))      # classifier_bias
    values["head.norm.weight"] = 1 + rng.normal(0.0, 0.1, size=(E,))
    values["head.norm.bias"] = rng.normal(0.0, 0.1, size=(E,))       # norm_bias
    tensors, w = store(c, head_values(c, rng, values), "model.", ("classifier.", "head."))

    def scores(window):
        h = modernbert(c, w, window["ids"])
        x = act("gelu", h @ w["head.dense.weight"].T + w["head.dense.bias"])
        x = layer_norm(x, w["head.norm.weight"], w["head.norm.bias"], c["eps"])
        return softmax(x @ w["classifier.weight"].T + w["classifier.bias"])
    config = modernbert_config(dict(c, labels=LABELS, pooling="cls", classifier_bias=True),
                               c["V"], ids)
    return tensors, scores, config


def deberta_model(c, rng):
    """DebertaV2ForTokenClassification: classifier(h), the encoder under `deberta.`."""
    values = head_values(c, rng, random_deberta(c, rng))
    tensors, w = store(c, values, "deberta.", ("classifier.",))

    def scores(window):
        h = deberta(c, w, window["ids"], [0] * len(window["ids"]))
        return softmax(h @ w["classifier.weight"].T + w["classifier.bias"])
    return tensors, scores, deberta_config(c, "DebertaV2ForTokenClassification")


def write_case(c, out, seed):
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tokenizer = os.path.join(folder, "tokenizer.json")
    bpe_ids = None
    if c["family"] == "bert":
        shutil.copy(MINILM, tokenizer)
        vocab_size, unk_id, word_aware, offset = 30522, 100, True, 0
    elif c["family"] == "roberta":
        vocab = unigram_vocabulary([t for _, t in TEXTS])
        json.dump(unigram_tokenizer_json(vocab, "template"),
                  open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
        vocab_size, unk_id, word_aware, offset = len(vocab), 3, False, 2
    elif c["family"] == "deberta":   # DebertaV2Converter's Unigram on these texts' pieces
        pieces = unigram_vocabulary([t for _, t in TEXTS])[4:-1]
        vocab = [[t, 0.0] for t in DEBERTA_SPECIALS] + pieces + [["[MASK]", 0.0]]
        json.dump(deberta_tokenizer_json(vocab, False), open(tokenizer, "w", encoding="utf-8"),
                  ensure_ascii=False)
        vocab_size, unk_id, word_aware, offset = len(vocab), 3, False, 0
    else:   # ModernBERT's byte-level BPE: every byte has a piece, no unknown token
        vocab, merges = train_bpe(400)
        content, bpe_ids = bpe_tokenizer_json(vocab, merges, pair_merges=False)
        json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
        vocab_size, unk_id, word_aware, offset = len(bpe_ids), -1, False, 0
    truncated = spans(tokenizer, TEXTS, c["P"] - offset, -1)
    chunked = spans(tokenizer, TEXTS, WINDOW, STRIDE)
    assert any(len(r["windows"]) > 2 for r in chunked), "no text takes three windows"
    assert any(len(r["windows"][0]["ids"]) == c["P"] - offset for r in truncated), "none is cut"
    assert unk_id < 0 or any(unk_id in r["windows"][0]["ids"] for r in truncated), "no unknown"
    for attempt in range(40):
        rng = np.random.default_rng(seed + attempt)
        c = dict(c, V=vocab_size, S=2 if c["family"] == "bert" else 1)
        tensors, scores, config = modernbert_model(c, rng, bpe_ids) if bpe_ids \
            else deberta_model(c, rng) if c["family"] == "deberta" \
            else bert_model(c, rng, offset)
        try:
            rows = []
            for cut, windows in zip(truncated, chunked):
                sentence = cut["text"]
                one = [scores(cut["windows"][0])]
                every = [scores(wd) for wd in windows["windows"]]
                row = {"id": cut["id"], "text": sentence,
                       "token_labels": [LABELS[argmax(s)] for s in one[0]],
                       "chunks": len(every),
                       "chunk_token_labels": [LABELS[argmax(s)] for e in every for s in e],
                       "entities": {}, "chunk_entities": {}}
                for strategy in STRATEGIES:
                    row["entities"][strategy] = postprocess(
                        sentence, cut["windows"], one, strategy, word_aware, unk_id)
                    row["chunk_entities"][strategy] = postprocess(
                        sentence, windows["windows"], every, strategy, word_aware, unk_id)
                rows.append(row)
        except Unclear:
            continue
        break
    else:
        raise SystemExit("no seed gave clear decisions")
    for strategy in STRATEGIES[1:]:
        assert any(r["entities"][strategy] != r["entities"]["simple"] for r in rows), \
            f"{strategy} gives what simple gives on every text: another seed"
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config.update(id2label={str(i): l for i, l in enumerate(LABELS)},
                  label2id={l: i for i, l in enumerate(LABELS)})
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    json.dump(rows, open(os.path.join(folder, "expected.json"), "w", encoding="utf-8"),
              ensure_ascii=False, indent=0)
    count = sum(len(r["entities"]["simple"]) for r in rows)
    print(f"{folder}: seed {seed + attempt}, {len(rows)} texts, {count} simple entities, "
          f"{sum(r['chunks'] for r in rows)} windows")


CASES = [
    dict(name="bert-ner", family="bert", L=2, E=32, H=4, F=64, P=128, eps=1e-12, act="gelu",
         dtype="F16"),
    dict(name="xlmr-ner", family="roberta", L=2, E=32, H=4, F=64, P=66, eps=1e-5, act="gelu",
         dtype="F32"),
    dict(name="modernbert-ner", family="modernbert", architecture=
         "ModernBertForTokenClassification", L=3, E=32, H=4, F=48, P=64, dtype="F32", bias=True,
         act="gelu", act_name="gelu", eps=1e-5, local_attention=8, every=3,
         global_theta=160000.0, local_theta=10000.0, config_form="5.x", head_scale=5),
    dict(name="deberta-ner", family="deberta", L=2, E=32, H=4, F=64, P=DEBERTA_POSITIONS,
         dtype="F32", pos_att_type="p2c|c2p", share_att_key=True, norm_rel_ebd="layer_norm",
         position_biased_input=False, type_vocab_size=0, position_buckets=16,
         max_relative_positions=-1),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261126 + 100 * n)
