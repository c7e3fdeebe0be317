#!/usr/bin/python3
"""A golden jina-embeddings-v3 folder, saved as the Hub holds it: config.json of model_type
xlm-roberta with `position_embedding_type: rotary`, `rotary_emb_base`, its auto_map to
jinaai/xlm-roberta-flash-implementation (XLMRobertaLoRA), `lora_adaptations` (the five tasks),
`lora_rank` 4, `lora_alpha` 1 and `task_instructions`; a random BF16 checkpoint of XLMRobertaLoRA's
state dict under `roberta.`, where every nn.Linear and nn.Embedding weight is a parametrization
(modeling_lora.py's LoRAParametrization): `<module>.parametrizations.weight.original` and the task
factors stacked one per task, `...parametrizations.weight.0.lora_A` and `lora_B` — (tasks, r, in)
and (tasks, out, r) for a linear layer, (tasks, V, r) and (tasks, r, E) for an embedding (the
factors the other way round); XLM-R's Unigram tokenizer; sentence-transformers files whose first
module is the folder's own `custom_st.Transformer` (its custom_st.py a stand-in whose tokenize
strips each text, as jina's copy of sentence-transformers' does), mean pooling, Normalize, and
the task instructions as prompts named by task.

The reference is a float64 port of modeling_xlm_roberta.py (jinaai/xlm-roberta-flash-implementation,
as ComfyUI's jina_clip_2.py ports it too): word embeddings plus token type 0, emb_ln; post-norm
blocks norm1(x + out_proj(attention)) and norm2(x + fc2(gelu(fc1(x)))); the fused Wqkv split into
heads, rotary positions on the whole head (rotate-half, base rotary_emb_base, positions from 0),
scores / √D, key padding only; on the weights merged as lora_forward adds the task's slice:
W + (alpha / r) · B[t] · A[t] for linear layers, W + (alpha / r) · A[t] · B[t] for embeddings.
Texts are stripped (the module does) with the task's instruction before them (the card:
encode(texts, task=t, prompt_name=t)). texts.json: retrieval.passage; queries.json:
retrieval.query.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_jina_v3_cases.py src/test/resources/xlmr-cases
"""
import json, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import TEXTS, case_folder, gelu, layer_norm, rotate_half, store  # noqa: E402
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402
from make_xlmr_cases import reference_ids, tokenizer_json, vocabulary  # noqa: E402

MAX_TOKENS = 48
TASKS = ["retrieval.query", "retrieval.passage", "separation", "classification", "text-matching"]
INSTRUCTIONS = {"retrieval.query": "Represent the query for retrieving evidence documents: ",
                "retrieval.passage": "Represent the document for retrieval: ",
                "separation": "", "classification": "", "text-matching": ""}
C = dict(L=2, E=32, H=4, F=64, theta=20000.0, eps=1e-5, rank=4, alpha=1.0)
CUSTOM_ST = '''"""The folder's sentence-transformers module (a stand-in written by make_jina_v3_cases.py):
the task's adapter by its index, and sentence-transformers' tokenize, which strips each text."""
from torch import nn


class Transformer(nn.Module):
    def tokenize(self, texts, padding=True):
        to_tokenize = [[str(s).strip() for s in texts]]
        return self.tokenizer(*to_tokenize, padding=padding, truncation="longest_first",
                              return_tensors="pt", max_length=self.max_seq_length)
'''


def linears(c, V):
    """Every nn.Linear and nn.Embedding of XLMRobertaModel: name -> (out, in) or (V, E)."""
    E, F = c["E"], c["F"]
    shapes = {"embeddings.word_embeddings": (V, E), "embeddings.token_type_embeddings": (1, E),
              "pooler.dense": (E, E)}
    for i in range(c["L"]):
        p = f"encoder.layers.{i}."
        shapes.update({p + "mixer.Wqkv": (3 * E, E), p + "mixer.out_proj": (E, E),
                       p + "mlp.fc1": (F, E), p + "mlp.fc2": (E, F)})
    return shapes


def checkpoint(c, V, rng):
    """The stored tensors (BF16, `roberta.`) and, by task, the merged weights in float64."""
    E, r, n = c["E"], c["rank"], len(TASKS)
    values, factors = {}, {}
    for name, (rows, cols) in linears(c, V).items():
        scale = 0.5 if name.startswith("embeddings") else 1 / np.sqrt(cols)
        values[name + ".parametrizations.weight.original"] = rng.normal(0, scale, (rows, cols))
        if name.endswith("_embeddings"):     # fan_in = rows, fan_out = cols: A (V, r), B (r, E)
            a, b = rng.normal(0, 1.0, (n, rows, r)), rng.normal(0, 0.5 / np.sqrt(r), (n, r, cols))
        else:                                # A (r, in), B (out, r)
            a, b = rng.normal(0, 1 / np.sqrt(cols), (n, r, cols)), rng.normal(0, 1.0, (n, rows, r))
        values[name + ".parametrizations.weight.0.lora_A"] = a
        values[name + ".parametrizations.weight.0.lora_B"] = b
        factors[name] = name.endswith("_embeddings")
        if not name.startswith("embeddings"):
            values[name + ".bias"] = rng.normal(0, 0.1, (rows,))
    for norm in ["emb_ln"] + [f"encoder.layers.{i}.norm{k}" for i in range(c["L"]) for k in (1, 2)]:
        values[norm + ".weight"] = 1 + rng.normal(0, 0.1, (E,))
        values[norm + ".bias"] = rng.normal(0, 0.1, (E,))
    tensors, w = store(values, "BF16", prefix="roberta.")
    s = c["alpha"] / r
    merged = {}
    for t in range(n):
        m = {k: v for k, v in w.items() if ".parametrizations." not in k}
        for name, embedding in factors.items():
            a = w[name + ".parametrizations.weight.0.lora_A"][t]
            b = w[name + ".parametrizations.weight.0.lora_B"][t]
            delta = a @ b if embedding else b @ a
            m[name + ".weight"] = w[name + ".parametrizations.weight.original"] + s * delta
        merged[TASKS[t]] = m
    return tensors, merged


def forward(c, w, ids):
    """modeling_xlm_roberta.py's XLMRobertaModel in float64: last hidden states (T, E)."""
    E, H = c["E"], c["H"]
    D = E // H
    ids = torch.tensor(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["emb_ln.weight"], w["emb_ln.bias"], c["eps"])
    T = len(ids)
    inv = 1.0 / (c["theta"] ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]
    for i in range(c["L"]):
        p = f"encoder.layers.{i}."
        qkv = (x @ w[p + "mixer.Wqkv.weight"].T + w[p + "mixer.Wqkv.bias"]).view(T, 3, H, D)
        q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        scores = torch.einsum("thd,shd->hts", q, k) / np.sqrt(D)
        context = torch.einsum("hts,shd->thd", torch.softmax(scores, dim=-1), v).reshape(T, E)
        attended = context @ w[p + "mixer.out_proj.weight"].T + w[p + "mixer.out_proj.bias"]
        x = layer_norm(x + attended, w[p + "norm1.weight"], w[p + "norm1.bias"], c["eps"])
        h = gelu(x @ w[p + "mlp.fc1.weight"].T + w[p + "mlp.fc1.bias"])
        x = layer_norm(x + h @ w[p + "mlp.fc2.weight"].T + w[p + "mlp.fc2.bias"],
                       w[p + "norm2.weight"], w[p + "norm2.bias"], c["eps"])
    return x


def main(out):
    rng = np.random.default_rng(20261131)
    folder = case_folder(out, "jina-v3")
    tokenizer = os.path.join(folder, "tokenizer.json")
    texts = [t for _, t in TEXTS]
    vocab = vocabulary(texts + list(INSTRUCTIONS.values()))
    json.dump(tokenizer_json(vocab, "template"), open(tokenizer, "w", encoding="utf-8"),
              ensure_ascii=False)
    c = dict(C)
    tensors, merged = checkpoint(c, len(vocab), rng)
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    flash = "jinaai/xlm-roberta-flash-implementation--"
    config = {"_name_or_path": "jinaai/jina-embeddings-v3", "architectures": ["XLMRobertaModel"],
              "attention_probs_dropout_prob": 0.1,
              "auto_map": {"AutoConfig": flash + "configuration_xlm_roberta.XLMRobertaFlashConfig",
                           "AutoModel": flash + "modeling_lora.XLMRobertaLoRA",
                           "AutoModelForPreTraining": flash
                           + "modeling_xlm_roberta.XLMRobertaForPreTraining"},
              "bos_token_id": 0, "classifier_dropout": None, "emb_pooler": None,
              "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
              "hidden_size": c["E"], "initializer_range": 0.02, "intermediate_size": c["F"],
              "layer_norm_eps": c["eps"], "load_trained_adapters": True,
              "lora_adaptations": TASKS, "lora_alpha": c["alpha"], "lora_dropout_p": 0.0,
              "lora_main_params_trainable": False, "lora_rank": c["rank"],
              "matryoshka_dimensions": [32, 64, 128, 256, 512, 768, 1024],
              "max_position_embeddings": 8194, "model_type": "xlm-roberta",
              "num_attention_heads": c["H"], "num_hidden_layers": c["L"], "output_past": True,
              "pad_token_id": 1, "position_embedding_type": "rotary",
              "rotary_emb_base": c["theta"], "task_instructions": INSTRUCTIONS,
              "torch_dtype": "bfloat16", "transformers_version": "4.41.0", "truncate_dim": None,
              "type_vocab_size": 1, "use_cache": True, "use_flash_attn": True,
              "vocab_size": len(vocab)}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    write_sentence_transformers(folder, c["E"], 8194)
    modules = json.load(open(os.path.join(folder, "modules.json")))
    modules[0]["type"] = "custom_st.Transformer"
    json.dump(modules, open(os.path.join(folder, "modules.json"), "w"), indent=2)
    with open(os.path.join(folder, "custom_st.py"), "w") as f:
        f.write(CUSTOM_ST)
    json.dump({"prompts": INSTRUCTIONS, "default_prompt_name": None},
              open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)
    for task, file in (("retrieval.passage", "texts.json"), ("retrieval.query", "queries.json")):
        rows = reference_ids(tokenizer, [{"id": i, "a": INSTRUCTIONS[task] + t} for i, t in TEXTS],
                             MAX_TOKENS, strip=True)
        assert any(r["full_length"] > MAX_TOKENS for r in rows), "no text is cut"
        out_rows = []
        for row, (_, text) in zip(rows, TEXTS):
            h = forward(c, merged[task], row["input_ids"])
            mean = h.mean(0)
            out_rows.append({"id": row["id"], "a": text, "input_ids": row["input_ids"],
                             "tokens": row["tokens"],
                             "last_hidden_state": [[float(f"{v:.8g}") for v in r]
                                                   for r in h.tolist()],
                             "pooled": [float(f"{v:.10g}") for v in (mean / mean.norm()).tolist()]})
        json.dump(out_rows, open(os.path.join(folder, file), "w", encoding="utf-8"),
                  separators=(",", ":"), ensure_ascii=False)
    print(f"{folder}: {len(TASKS)} tasks stacked, vocabulary {len(vocab)}")


if __name__ == "__main__":
    main(sys.argv[1])
