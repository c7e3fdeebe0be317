#!/usr/bin/python3
"""A golden Qwen3-Reranker folder as it comes on the Hub (Qwen3ForCausalLM, BF16, `model.` with a
tied lm_head left out, Qwen3's base tokenizer: byte-level BPE whose post-processor adds nothing,
`<think>` and `</think>` added tokens, "yes" and "no" in the vocabulary), and the scores its model
card computes for text pairs:

  prefix = "<|im_start|>system\\nJudge whether the Document meets the requirements based on the
           Query and the Instruct provided. Note that the answer can only be \\"yes\\" or
           \\"no\\".<|im_end|>\\n<|im_start|>user\\n"
  suffix = "<|im_end|>\\n<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n"
  text   = "<Instruct>: {instruction}\\n<Query>: {query}\\n<Document>: {doc}"
  ids    = encode(prefix) + encode(text, truncation, max_length - len(prefix) - len(suffix))
           + encode(suffix), none with special tokens
  score  = exp(log_softmax([logit "no", logit "yes"])[1]) at the last token

pairs.json holds each pair's ids, the logit (yes - no) and the score, with the card's default
instruction; pairs-instructed.json the same with another instruction. The forward pass is
jobs/samples/make_qwen2_cases.py's float64 port with Qwen3's q/k norms; logits of the whole
vocabulary through lm_head (tied: the embedding table).

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_qwen3_reranker_cases.py src/test/resources/reranker-cases
"""
import json, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import PAIRS, case_folder, decoder, random_decoder, store  # noqa: E402
from make_bert_cases import write_safetensors  # noqa: E402
from make_qwen3_cases import tokenizer_json  # noqa: E402
from make_xlmr_cases import reference_ids  # noqa: E402

MAX_TOKENS = 320
PREFIX = ("<|im_start|>system\nJudge whether the Document meets the requirements based on the "
          "Query and the Instruct provided. Note that the answer can only be \"yes\" or \"no\"."
          "<|im_end|>\n<|im_start|>user\n")
SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
DEFAULT_INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query"
OTHER_INSTRUCTION = "Given a question, find the passage that answers it"


def plain_ids(tokenizer, texts, max_tokens=100_000):
    rows = reference_ids(tokenizer, [{"id": str(i), "a": t} for i, t in enumerate(texts)],
                         max_tokens)
    return [r["input_ids"] for r in rows], [r["full_length"] for r in rows]


def write_pairs(folder, tokenizer, score, instruction, file, label="yes"):
    """The card's ids of every pair (prefix, the text cut to the room left, suffix) and what
    score(ids) gives them: (the logit, the score)."""
    (prefix, suffix), _ = plain_ids(tokenizer, [PREFIX, SUFFIX])
    room = MAX_TOKENS - len(prefix) - len(suffix)
    bodies = [f"<Instruct>: {instruction}\n<Query>: {q}\n<Document>: {d}" for _, q, d in PAIRS]
    cut, full = plain_ids(tokenizer, bodies, room)
    assert any(n > room for n in full), "no pair is cut"
    out = []
    for (pid, q, d), body in zip(PAIRS, cut):
        ids = prefix + body + suffix
        logit, value = score(ids)
        out.append({"id": pid, "a": q, "b": d, "input_ids": ids,
                    "logits": [float(f"{float(logit):.10g}")],
                    "scores": [float(f"{float(value):.10g}")], "label": label})
    json.dump(out, open(os.path.join(folder, file), "w", encoding="utf-8"),
              separators=(",", ":"), ensure_ascii=False)
    return len(prefix), len(suffix)


def yes_no(c, w, lm_head, yes, no):
    """The card's score: softmax over the "no" and "yes" logits at the last token."""
    def score(ids):
        logits = lm_head @ decoder(c, w, ids)[-1]
        pair = torch.stack([logits[no], logits[yes]])
        return logits[yes] - logits[no], torch.log_softmax(pair, dim=0)[1].exp()
    return score


def main(out, seed=20261129):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, "qwen3-reranker")
    content, size = tokenizer_json()
    content["post_processor"] = {"type": "ByteLevel", "add_prefix_space": False,
                                 "trim_offsets": False, "use_regex": False}
    vocab = content["model"]["vocab"]
    for word in ("yes", "no"):                  # whole words of Qwen's vocabulary
        vocab.setdefault(word, size)
        size = max(size, vocab[word] + 1)
    for t in ("<think>", "</think>"):
        content["added_tokens"].append({"id": size, "content": t, "single_word": False,
                                        "lstrip": False, "rstrip": False, "normalized": False,
                                        "special": False})
        size += 1
    tokenizer = os.path.join(folder, "tokenizer.json")
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(L=2, E=32, H=4, K=2, F=48, theta=1000000.0, qk_norm=True, bias=False, V=size,
             eps=1e-6, causal=True)
    values = random_decoder(c, rng)
    tensors, w = store(values, "BF16", "model.")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    eos = [t["id"] for t in content["added_tokens"] if t["content"] == "<|endoftext|>"][0]
    config = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False,
              "attention_dropout": 0.0, "bos_token_id": eos, "eos_token_id": eos,
              "head_dim": c["E"] // c["H"], "hidden_act": "silu", "hidden_size": c["E"],
              "initializer_range": 0.02, "intermediate_size": c["F"],
              "max_position_embeddings": 40960, "max_window_layers": c["L"],
              "model_type": "qwen3", "num_attention_heads": c["H"],
              "num_hidden_layers": c["L"], "num_key_value_heads": c["K"],
              "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": c["theta"],
              "sliding_window": None, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
              "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False,
              "vocab_size": size}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    lm_head = w["embed_tokens.weight"]
    yes, no = vocab["yes"], vocab["no"]
    score = yes_no(c, w, lm_head, yes, no)
    p, s = write_pairs(folder, tokenizer, score, DEFAULT_INSTRUCTION, "pairs.json")
    write_pairs(folder, tokenizer, score, OTHER_INSTRUCTION, "pairs-instructed.json")
    print(f"{folder}: vocabulary {size}, yes {yes}, no {no}, prefix {p} and suffix {s} tokens, "
          f"{len(PAIRS)} pairs")


if __name__ == "__main__":
    main(sys.argv[1])
