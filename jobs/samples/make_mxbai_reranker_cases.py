#!/usr/bin/python3
"""A golden mxbai-rerank-v2 folder as it comes on the Hub (Qwen2ForCausalLM, BF16, `model.` with
the lm_head tied to the embeddings and left out, Qwen's byte-level BPE whose post-processor adds
nothing), and the scores mixedbread's MxbaiRerankV2 (mxbai_rerank/mxbai_rerank_v2.py) computes for
text pairs, each piece tokenized alone without special tokens:

  ids   = encode(chat prefix) + encode(query_prompt) + encode("\\n") + encode("document: " + d)
          + encode("\\n") + encode(task_prompt) + encode(chat suffix)
  query_prompt = "query: " + q, or "instruction: " + i + "\\n" + "query: " + q
  logit = lm_head["1"] · h_last − lm_head["0"] · h_last   (predict's score, not normalized)

pairs.json holds each pair's ids, the logit and sigmoid(logit) without an instruction;
pairs-instructed.json the same with one. No pair is long enough to be cut. (This small
vocabulary has no merge across a piece's edge, so the pieces run together would give the same
ids here; with Qwen's own merges, " \n" for one, they would not.) The forward pass is
family_cases.py's float64 decoder port with Qwen2's q, k, v biases.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_mxbai_reranker_cases.py src/test/resources/reranker-cases
"""
import json, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import PAIRS, case_folder, random_decoder, store  # noqa: E402
from make_bert_cases import write_safetensors  # noqa: E402
from make_qwen3_cases import tokenizer_json  # noqa: E402
from make_qwen3_reranker_cases import plain_ids, yes_no  # noqa: E402

PREFIX = ("<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful "
          "assistant.<|im_end|>\n<|im_start|>user\n")
SEP = "\n"
TASK = ("You are a search relevance expert who evaluates how well documents match search "
        "queries. For each query-document pair, carefully analyze the semantic relationship "
        "between them, then provide your binary relevance judgment (0 for not relevant, 1 for "
        "relevant).\nRelevance:")
SUFFIX = "<|im_end|>\n<|im_start|>assistant\n"
INSTRUCTION = "Find the passage that answers the question"
# A query ending in a space and a document starting with one: texts are not stripped.
PAIRS = PAIRS + [["p-space", "a query that ends in a space ", " a document after a space"]]


def write_pairs(folder, tokenizer, score, instruction, file):
    (prefix, sep, task, suffix), _ = plain_ids(tokenizer, [PREFIX, SEP, TASK, SUFFIX])
    queries = [("instruction: " + instruction + SEP if instruction else "") + "query: " + q
               for _, q, _ in PAIRS]
    documents = ["document: " + d for _, _, d in PAIRS]
    query_ids, _ = plain_ids(tokenizer, queries)
    document_ids, _ = plain_ids(tokenizer, documents)
    out = []
    for (pid, q, d), qi, di in zip(PAIRS, query_ids, document_ids):
        ids = prefix + qi + sep + di + sep + task + suffix
        logit, _ = score(ids)
        out.append({"id": pid, "a": q, "b": d, "input_ids": ids,
                     "logits": [float(f"{float(logit):.10g}")],
                     "scores": [float(f"{1 / (1 + np.exp(-float(logit))):.10g}")],
                     "label": "1"})
    json.dump(out, open(os.path.join(folder, file), "w", encoding="utf-8"),
              separators=(",", ":"), ensure_ascii=False)
    return max(len(r["input_ids"]) for r in out)


def main(out, seed=20261130):
    rng = np.random.default_rng(seed)
    folder = case_folder(out, "mxbai-rerank-v2")
    content, size = tokenizer_json()
    content["post_processor"] = {"type": "ByteLevel", "add_prefix_space": False,
                                 "trim_offsets": False, "use_regex": False}
    vocab = content["model"]["vocab"]
    assert "1" in vocab and "0" in vocab, "the digits are pieces of a byte-level vocabulary"
    tokenizer = os.path.join(folder, "tokenizer.json")
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(L=2, E=32, H=4, K=2, F=48, theta=1000000.0, qk_norm=False, bias=True, V=size,
             eps=1e-6, causal=True)
    tensors, w = store(random_decoder(c, rng), "BF16", "model.")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    eos = [t["id"] for t in content["added_tokens"] if t["content"] == "<|endoftext|>"][0]
    json.dump({"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0,
               "bos_token_id": eos, "eos_token_id": eos, "hidden_act": "silu",
               "hidden_size": c["E"], "initializer_range": 0.02, "intermediate_size": c["F"],
               "max_position_embeddings": 32768, "max_window_layers": c["L"],
               "model_type": "qwen2", "num_attention_heads": c["H"],
               "num_hidden_layers": c["L"], "num_key_value_heads": c["K"],
               "rms_norm_eps": 1e-06, "rope_theta": c["theta"], "sliding_window": None,
               "tie_word_embeddings": True, "torch_dtype": "bfloat16",
               "transformers_version": "4.49.0", "use_cache": True, "use_sliding_window": False,
               "vocab_size": size}, open(os.path.join(folder, "config.json"), "w"), indent=2)
    score = yes_no(c, w, w["embed_tokens.weight"], vocab["1"], vocab["0"])
    longest = write_pairs(folder, tokenizer, score, "", "pairs.json")
    write_pairs(folder, tokenizer, score, INSTRUCTION, "pairs-instructed.json")
    print(f"{folder}: vocabulary {size}, 1 is {vocab['1']}, 0 is {vocab['0']}, {len(PAIRS)} "
          f"pairs of up to {longest} tokens")


if __name__ == "__main__":
    main(sys.argv[1])
