#!/usr/bin/python3
"""Golden NomicBERT folders: random checkpoints saved as nomic-embed-text's are, with a
WordPiece tokenizer.json of its form (bert-base-uncased's: BertNormalizer, BertPreTokenizer,
`[CLS] A [SEP]`), cut from BERT's vocabulary (jobs/samples/family_cases.py):

  - nomic-embed: NomicBertModel, whole, F32, nomic-embed-text-v1.5's config.json (its keys,
    auto_map naming nomic-ai/nomic-bert-2048's code, swiglu, no biases, rotary base 1000 on the
    whole head, halves), its sentence-transformers files (mean pooling, Normalize, the prompts
    of config_sentence_transformers.json); texts.json holds the texts with the "query" prompt
    (search_query: ) put before them;
  - nomic-pretraining: NomicBertForPreTraining, `bert.` prefix with cls.predictions.*, BF16,
    a plain GELU feed-forward (fc1, fc2) with biases, biased Wqkv and out_proj, and rotary
    positions on half of each head in interleaved pairs (rotary_emb_fraction 0.5,
    rotary_emb_interleaved true, base 10000).

The reference outputs come from a float64 port of modeling_hf_nomic_bert.py: word + token-type
embeddings, emb_ln; per layer Wqkv split (three h d), rotary on q and k (apply_rotary_emb_torch
and rotate_half as written there, on the first rotary_emb_fraction · D values), softmax of
q·kᵀ/√D, out_proj, norm1(x + attn), the MLP (fc2(fc11(x) · silu(fc12(x))) for swiglu), norm2.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_nomic_cases.py src/test/resources/nomic-cases
"""
import json, math, os, shutil, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (bert_uncased_tokenizer, gelu, layer_norm, store,  # noqa: E402
                          write_texts)
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402

MAX_TOKENS = 64
PROMPTS = {"query": "search_query: ", "document": "search_document: ",
           "passage": "search_document: ", "classification": "classification: ",
           "clustering": "clustering: "}


def random_nomic(c, rng):
    E, F, V = c["E"], c["F"], c["V"]
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embeddings.word_embeddings.weight": normal(V, E, std=0.5),
         "embeddings.token_type_embeddings.weight": normal(2, E, std=0.3),
         "emb_ln.weight": 1 + normal(E, std=0.1), "emb_ln.bias": normal(E, std=0.1)}
    for i in range(c["L"]):
        p = f"encoder.layers.{i}."
        t[p + "attn.Wqkv.weight"] = normal(3 * E, E, std=1.8 / np.sqrt(E))
        t[p + "attn.out_proj.weight"] = normal(E, E, std=1 / np.sqrt(E))
        if c["bias"]:
            t[p + "attn.Wqkv.bias"] = normal(3 * E, std=0.1)
            t[p + "attn.out_proj.bias"] = normal(E, std=0.1)
        fcs = ["fc11", "fc12"] if c["swiglu"] else ["fc1"]
        for n in fcs:
            t[p + f"mlp.{n}.weight"] = normal(F, E, std=1 / np.sqrt(E))
            if c["bias"]:
                t[p + f"mlp.{n}.bias"] = normal(F, std=0.1)
        t[p + "mlp.fc2.weight"] = normal(E, F, std=1 / np.sqrt(F))
        if c["bias"]:
            t[p + "mlp.fc2.bias"] = normal(E, std=0.1)
        for n in ("norm1", "norm2"):
            t[p + n + ".weight"] = 1 + normal(E, std=0.1)
            t[p + n + ".bias"] = normal(E, std=0.1)
    return t


def rotate_half(x, interleaved=False):
    """modeling_hf_nomic_bert.py's."""
    if not interleaved:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rotary_emb_torch(x, cos, sin, interleaved=False):
    """modeling_hf_nomic_bert.py's: x (T, H, D), cos and sin (T, rotary_dim / 2)."""
    ro_dim = cos.shape[-1] * 2
    if interleaved:
        cos = cos.repeat_interleave(2, dim=-1)[:, None, :]
        sin = sin.repeat_interleave(2, dim=-1)[:, None, :]
    else:
        cos = torch.cat((cos, cos), dim=-1)[:, None, :]
        sin = torch.cat((sin, sin), dim=-1)[:, None, :]
    return torch.cat([x[..., :ro_dim] * cos + rotate_half(x[..., :ro_dim], interleaved) * sin,
                      x[..., ro_dim:]], dim=-1)


def nomic(c, w, ids, types):
    """Last hidden states (T, E) of one unpadded sequence, float64."""
    T, H, E, eps = len(ids), c["H"], c["E"], 1e-12
    D = E // H
    x = (w["embeddings.word_embeddings.weight"][torch.tensor(ids)]
         + w["embeddings.token_type_embeddings.weight"][torch.tensor(types)])
    x = layer_norm(x, w["emb_ln.weight"], w["emb_ln.bias"], eps)
    rotary_dim = int(c["fraction"] * D)
    inv_freq = 1.0 / (c["base"] ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64)
                                    / rotary_dim))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    cos, sin = torch.cos(freqs), torch.sin(freqs)
    for i in range(c["L"]):
        p = f"encoder.layers.{i}."
        lin = lambda v, n: v @ w[p + n + ".weight"].T + (w[p + n + ".bias"] if c["bias"] else 0)
        q, k, v = lin(x, "attn.Wqkv").view(T, 3, H, D).unbind(1)
        q = apply_rotary_emb_torch(q, cos, sin, c["interleaved"]).transpose(0, 1)
        k = apply_rotary_emb_torch(k, cos, sin, c["interleaved"]).transpose(0, 1)
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(D), dim=-1)
        attn = lin((a @ v.transpose(0, 1)).transpose(0, 1).reshape(T, E), "attn.out_proj")
        x = layer_norm(attn + x, w[p + "norm1.weight"], w[p + "norm1.bias"], eps)
        if c["swiglu"]:
            y = lin(x, "mlp.fc11") * torch.nn.functional.silu(lin(x, "mlp.fc12"))
        else:
            y = gelu(lin(x, "mlp.fc1"))
        x = layer_norm(lin(y, "mlp.fc2") + x, w[p + "norm2.weight"], w[p + "norm2.bias"], eps)
    return x


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tokenizer = os.path.join(folder, "tokenizer.json")
    vocab = bert_uncased_tokenizer(tokenizer, PROMPTS.values())
    c = dict(c, V=len(vocab))
    values = random_nomic(c, rng)
    if c["pretraining"]:
        tensors, w = store(values, c["dtype"], "bert.")
        E = c["E"]
        head = {"cls.predictions.transform.dense.weight": rng.normal(0, 0.1, (E, E)),
                "cls.predictions.transform.dense.bias": rng.normal(0, 0.1, (E,)),
                "cls.predictions.transform.layer_norm.weight": np.ones(E),
                "cls.predictions.transform.layer_norm.bias": np.zeros(E),
                "cls.predictions.decoder.weight": values["embeddings.word_embeddings.weight"],
                "cls.predictions.decoder.bias": np.zeros(c["V"])}
        tensors.update(store(head, c["dtype"])[0])
    else:
        tensors, w = store(values, c["dtype"])
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    code = "nomic-ai/nomic-bert-2048--"
    config = {"_name_or_path": "nomic-ai/nomic-bert-2048",
              "activation_function": "swiglu" if c["swiglu"] else "gelu",
              "architectures": ["NomicBertForPreTraining" if c["pretraining"]
                                else "NomicBertModel"], "attn_pdrop": 0.0,
              "auto_map": {"AutoConfig": code + "configuration_hf_nomic_bert.NomicBertConfig",
                           "AutoModel": code + "modeling_hf_nomic_bert.NomicBertModel",
                           "AutoModelForMaskedLM": code
                           + "modeling_hf_nomic_bert.NomicBertForPreTraining"},
              "bos_token_id": None, "causal": False, "dense_seq_output": True,
              "embd_pdrop": 0.0, "eos_token_id": None, "fused_bias_fc": True,
              "fused_dropout_add_ln": True, "initializer_range": 0.02,
              "layer_norm_epsilon": 1e-12, "max_trained_positions": 2048,
              "mlp_fc1_bias": c["bias"], "mlp_fc2_bias": c["bias"], "model_type": "nomic_bert",
              "n_embd": c["E"], "n_head": c["H"], "n_inner": c["F"], "n_layer": c["L"],
              "n_positions": 8192, "pad_vocab_size_multiple": 64, "parallel_block": False,
              "parallel_block_tied_norm": False, "prenorm": False, "qkv_proj_bias": c["bias"],
              "reorder_and_upcast_attn": False, "resid_pdrop": 0.0,
              "rotary_emb_base": c["base"], "rotary_emb_fraction": c["fraction"],
              "rotary_emb_interleaved": c["interleaved"], "rotary_emb_scale_base": None,
              "rotary_scaling_factor": None, "scale_attn_by_inverse_layer_idx": False,
              "scale_attn_weights": True, "summary_activation": None,
              "summary_first_dropout": 0.0, "summary_proj_to_labels": True,
              "summary_type": "cls_index", "summary_use_proj": True,
              "torch_dtype": "float32", "transformers_version": "4.34.0",
              "type_vocab_size": 2, "use_cache": True, "use_flash_attn": True,
              "use_rms_norm": False, "use_xentropy": True, "vocab_size": c["V"]}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    prompt = ""
    if not c["pretraining"]:
        write_sentence_transformers(folder, c["E"], 8192)
        json.dump({"__version__": {"sentence_transformers": "2.4.0.dev0",
                                   "transformers": "4.37.2", "pytorch": "2.1.0+cu121"},
                   "prompts": PROMPTS, "default_prompt_name": None},
                  open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)
        prompt = PROMPTS["query"]
    rows = write_texts(folder, tokenizer, MAX_TOKENS, lambda ids, types: nomic(c, w, ids, types),
                       prompt=prompt)
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} {c['dtype']}, vocabulary {c['V']}, "
          f"{len(rows)} texts, prompt '{prompt}'")


CASES = [
    dict(name="nomic-embed", L=2, E=32, H=4, F=48, dtype="F32", swiglu=True, bias=False,
         fraction=1.0, interleaved=False, base=1000, pretraining=False),
    dict(name="nomic-pretraining", L=2, E=32, H=4, F=64, dtype="BF16", swiglu=False, bias=True,
         fraction=0.5, interleaved=True, base=10000, pretraining=True),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261126 + n)
