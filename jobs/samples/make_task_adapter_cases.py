#!/usr/bin/python3
"""A golden folder with a LoRA adapter per task, as jina-embeddings-v5-text's folders carry them:
a random BF16 Qwen3Model (src/test/resources/qwen3-cases' form: 4 heads on 2 KV heads of 16 in a
width of 32, last-token pooling, Normalize, Qwen's byte-level BPE appending <|endoftext|>) with
`adapters/retrieval/` and `adapters/text-matching/`, each as PEFT saves an adapter
(adapter_config.json: peft_type LORA, r, lora_alpha, target_modules q, k, v, o, gate, up and down
projections; adapter_model.safetensors: `base_model.model.layers.N.….lora_A.weight` (r, in) and
`lora_B.weight` (out, r), F32): retrieval r = 4, alpha 16; text-matching r = 8, alpha 8 under
use_rslora (scale alpha / sqrt(r)).

texts.json holds the retrieval task's reference, texts-text-matching.json the other's: the float64
port (family_cases.decoder, as modeling_qwen3.py computes) on the weights merged as PEFT's
merge_and_unload merges them, W + scale · B · A.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_task_adapter_cases.py src/test/resources/qwen3-cases
"""
import json, os, shutil, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (case_folder, decoder, random_decoder, store,  # noqa: E402
                          write_last_token_pipeline, write_texts)
from make_bert_cases import write_safetensors  # noqa: E402
from make_qwen3_cases import tokenizer_json  # noqa: E402

MAX_TOKENS = 64
C = dict(L=2, E=32, H=4, K=2, D=16, F=48, theta=1000000.0, eps=1e-6, causal=True, bias=False,
         qk_norm=True)
TASKS = {"retrieval": dict(r=4, alpha=16, rslora=False),
         "text-matching": dict(r=8, alpha=8, rslora=True)}
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def adapter(folder, w, task, rng):
    """adapters/<task>: its config and factors; returns the weights merged with them."""
    t = TASKS[task]
    out = os.path.join(folder, "adapters", task)
    os.makedirs(out)
    json.dump({"base_model_name_or_path": "Qwen/Qwen3-0.6B", "bias": "none", "fan_in_fan_out": False,
               "inference_mode": True, "init_lora_weights": True, "lora_alpha": t["alpha"],
               "lora_dropout": 0.0, "modules_to_save": None, "peft_type": "LORA", "r": t["r"],
               "target_modules": TARGETS, "task_type": "FEATURE_EXTRACTION",
               "use_dora": False, "use_rslora": t["rslora"]},
              open(os.path.join(out, "adapter_config.json"), "w"), indent=2)
    scale = t["alpha"] / (np.sqrt(t["r"]) if t["rslora"] else t["r"])
    tensors, merged = {}, dict(w)
    for name in w:
        module = name[:-len(".weight")]
        if not name.endswith(".weight") or module.split(".")[-1] not in TARGETS:
            continue
        rows, cols = w[name].shape
        a = rng.normal(0.0, 1 / np.sqrt(cols), size=(t["r"], cols))
        b = rng.normal(0.0, 0.5 / np.sqrt(t["r"]), size=(rows, t["r"]))
        stored_a, back_a = store({"a": a}, "F32")
        stored_b, back_b = store({"b": b}, "F32")
        tensors[f"base_model.model.{module}.lora_A.weight"] = stored_a["a"]
        tensors[f"base_model.model.{module}.lora_B.weight"] = stored_b["b"]
        merged[name] = w[name] + scale * (back_b["b"] @ back_a["a"])
    write_safetensors(os.path.join(out, "adapter_model.safetensors"), tensors)
    return merged


def write_task_references(folder, tokenizer, c, w, rng, strip=None):
    """adapters/text-matching and adapters/retrieval, each with its reference on the merged
    weights (texts-text-matching.json, texts.json), the documents' `Document: ` prompt before
    the texts (stripped as write_texts strips them unless `strip` says otherwise)."""
    for task, file in (("text-matching", "texts-text-matching.json"), ("retrieval", "texts.json")):
        merged = adapter(folder, w, task, rng)
        write_texts(folder, tokenizer, MAX_TOKENS, lambda ids, types: decoder(c, merged, ids),
                    "last", "Document: ", strip=strip)
        if file != "texts.json":
            os.replace(os.path.join(folder, "texts.json"), os.path.join(folder, file))


def main(out):
    rng = np.random.default_rng(20261129)
    folder = case_folder(out, "qwen3-tasks")
    tokenizer = os.path.join(folder, "tokenizer.json")
    content, size = tokenizer_json()
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(C, V=size)
    tensors, w = store(random_decoder(c, rng), "BF16")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    shutil.copy(os.path.join(out, "qwen3-embedding", "config.json"),
                os.path.join(folder, "config.json"))
    write_last_token_pipeline(folder, c["E"], 8192, {"query": "Query: ", "document": "Document: "})
    write_task_references(folder, tokenizer, c, w, rng)
    print(f"{folder}: tasks {list(TASKS)}, vocabulary {size}")


if __name__ == "__main__":
    main(sys.argv[1])
