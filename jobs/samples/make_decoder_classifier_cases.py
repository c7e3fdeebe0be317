#!/usr/bin/python3
"""Golden decoder classifier folders: random checkpoints saved as transformers saves
Qwen3ForSequenceClassification and Qwen2ForSequenceClassification (the encoder under `model.`,
`score.weight` (labels, E) without a bias), with Qwen's byte-level BPE tokenizer
(jobs/samples/make_qwen3_cases.py's):

  - qwen3-reranker-seq-cls: as the converted Qwen3-Reranker (`-seq-cls`) comes: one label
    (sigmoid), Qwen3's q/k norms, a tokenizer.json whose post-processor adds nothing, as Qwen3's
    base tokenizer; `pad_token_id` set (<|endoftext|>, which these texts never hold); and
    pairs-templated.json, the pairs in its card's template (make_qwen3_reranker_cases.py's);
  - qwen2-seq-cls: three labels (softmax), biases on q/k/v, gte-Qwen2's tokenizer_config.json
    (add_eos_token: <|endoftext|> ends every text) and `pad_token_id` the same <|endoftext|>: the
    score is read at the token before it;
  - mistral-seq-cls: MistralForSequenceClassification, two labels, Mistral's Llama-form
    tokenizer (jobs/samples/make_mistral_cases.py's: `<s>` first), no `pad_token_id` (null): the
    score is read at the last token.

Both on texts and pairs. The logits come from a float64 port of transformers' sequence
classification over the families' ports (jobs/samples/make_qwen2_cases.py): the score layer on
the final normed state of the rightmost token whose id is not `pad_token_id` (the last token
when there is none).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_decoder_classifier_cases.py \
      src/test/resources/decoder-classifier-cases
"""
import json, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (case_folder, decoder, random_decoder, store,  # noqa: E402
                          write_classifier_rows)
from make_bert_cases import write_safetensors  # noqa: E402
from make_qwen2_cases import (EOS, with_template,  # noqa: E402
                              write_gte_qwen2_tokenizer_config)
from make_mistral_cases import tokenizer_json as mistral_tokenizer_json  # noqa: E402
from make_qwen3_cases import tokenizer_json  # noqa: E402
from make_qwen3_reranker_cases import DEFAULT_INSTRUCTION, write_pairs  # noqa: E402

MAX_TOKENS = 96


def read_at(ids, pad):
    """transformers' last_non_pad_token: the rightmost position whose id is not pad."""
    if pad is None:
        return len(ids) - 1
    keep = [i for i, t in enumerate(ids) if t != pad]
    return keep[-1] if keep else 0


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, c["name"])
    tokenizer = os.path.join(folder, "tokenizer.json")
    mistral = c["family"] == "mistral"
    content, size = mistral_tokenizer_json() if mistral else tokenizer_json()
    if not mistral:
        content["post_processor"] = {"type": "ByteLevel", "add_prefix_space": False,
                                     "trim_offsets": False, "use_regex": False}
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    eos = 2 if mistral else size - 3
    pad = None if mistral else eos
    labels = c["labels"]
    c = dict(c, V=size, eps=1e-6, causal=True, activation=None, problem_type=None)
    values = random_decoder(c, rng)
    values["score.weight"] = rng.normal(0.0, 1.0, size=(len(labels), c["E"]))
    tensors, w = store({k: v for k, v in values.items() if k != "score.weight"}, "BF16",
                       "model.")
    head_tensors, head = store({"score.weight": values["score.weight"]}, "BF16")
    tensors.update(head_tensors)
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    kind = "Mistral" if mistral else "Qwen3" if c["qk_norm"] else "Qwen2"
    config = {"architectures": [f"{kind}ForSequenceClassification"], "attention_dropout": 0.0,
              "bos_token_id": eos, "eos_token_id": eos, "hidden_act": "silu",
              "hidden_size": c["E"], "id2label": {str(i): l for i, l in enumerate(labels)},
              "label2id": {l: i for i, l in enumerate(labels)}, "initializer_range": 0.02,
              "intermediate_size": c["F"], "max_position_embeddings": 32768,
              "max_window_layers": c["L"], "model_type": kind.lower(),
              "num_attention_heads": c["H"], "num_hidden_layers": c["L"],
              "num_key_value_heads": c["K"], "pad_token_id": pad, "rms_norm_eps": 1e-06,
              "rope_scaling": None, "rope_theta": c["theta"], "sliding_window": None,
              "tie_word_embeddings": False, "torch_dtype": "bfloat16",
              "transformers_version": "4.51.3", "use_cache": True, "use_sliding_window": False,
              "vocab_size": size}
    if c["qk_norm"]:
        config.update(attention_bias=False, head_dim=c["E"] // c["H"])
    if mistral:
        for key in ("max_window_layers", "rope_scaling", "use_sliding_window"):
            del config[key]
        config.update(bos_token_id=1, eos_token_id=2)
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    reference = tokenizer
    if c["eos"]:
        write_gte_qwen2_tokenizer_config(folder)
        reference = with_template(tokenizer, ["$A", EOS], [EOS])

    def forward(ids, types):
        return (decoder(c, w, ids) if ids else None), ids

    def logits(state_and_ids):
        h, ids = state_and_ids
        return head["score.weight"] @ h[read_at(ids, pad)] if ids else torch.zeros(len(labels))

    write_classifier_rows(folder, reference, MAX_TOKENS, forward, logits, c)
    if c["template"]:   # the converted reranker with its card's template, as model.reranker
        def score(ids):
            logit = logits((decoder(c, w, ids), ids))[0]
            return logit, torch.sigmoid(logit)
        write_pairs(folder, tokenizer, score, DEFAULT_INSTRUCTION, "pairs-templated.json",
                    labels[0])
    for file in ("texts.json", "pairs.json"):   # a text of no token is set aside by the job
        path = os.path.join(folder, file)
        rows = json.load(open(path, encoding="utf-8"))
        json.dump([r for r in rows if r["input_ids"]], open(path, "w", encoding="utf-8"),
                  separators=(",", ":"), ensure_ascii=False)
    if reference != tokenizer:
        os.unlink(reference)
    print(f"{folder}: {kind}, {len(labels)} labels, eos appended: {c['eos']}")


CASES = [
    dict(name="qwen3-reranker-seq-cls", family="qwen3", L=2, E=32, H=4, K=2, F=48,
         theta=1000000.0, qk_norm=True, bias=False, eos=False, labels=["LABEL_0"],
         template=True),
    dict(name="qwen2-seq-cls", family="qwen2", L=2, E=32, H=4, K=1, F=64, theta=10000.0,
         qk_norm=False, bias=True, eos=True, labels=["contradiction", "entailment", "neutral"],
         template=False),
    dict(name="mistral-seq-cls", family="mistral", L=2, E=32, H=4, K=2, F=48, theta=10000.0,
         qk_norm=False, bias=False, eos=False, labels=["negative", "positive"], template=False),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261128 + n)
