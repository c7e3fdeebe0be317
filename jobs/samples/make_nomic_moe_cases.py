#!/usr/bin/python3
"""A golden nomic-embed-text-v2-moe folder: a random F32 checkpoint saved as nomic's is
(NomicBertModel tensor names; every second layer, i % moe_every_n_layers == 1, a mixture of
experts in MegaBlocks' layout: `mlp.router.layer.weight` (X, E), `mlp.experts.mlp.w1` and
`mlp.experts.mlp.w2` both (X·F, E), `mlp.experts.bias` (E); the other layers a plain GELU
fc1/fc2 with biases), its config.json keys (num_experts, moe_top_k, moe_every_n_layers,
moe_normalize_expert_weights false, type_vocab_size 1), XLM-R's Unigram tokenizer form
(jobs/samples/make_xlmr_cases.py), sentence-transformers files with mean pooling, Normalize and
the prompts `search_query: ` / `search_document: `; texts.json holds the texts as queries.

The reference comes from make_nomic_cases.nomic (a float64 port of modeling_hf_nomic_bert.py)
with the MoE layer of nomic's NomicMoELayer (as vLLM's and TEI's ports compute it): p =
softmax(x · routerᵀ), its top-k experts weighted by their p as they are (no renormalisation),
expert e = gelu(x · w1ₑᵀ) · w2ₑ with w1 and w2 viewed (X, F, E), the weighted outputs summed,
experts.bias added once; then norm2(x + that) as a dense layer's.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_nomic_moe_cases.py src/test/resources/nomic-cases
"""
import json, math, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import TEXTS, case_folder, gelu, layer_norm, store, write_texts  # noqa: E402
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402
from make_nomic_cases import apply_rotary_emb_torch  # noqa: E402
from make_xlmr_cases import tokenizer_json, vocabulary  # noqa: E402

MAX_TOKENS = 48
PROMPTS = {"query": "search_query: ", "passage": "search_document: "}
C = dict(L=4, E=32, H=4, F=48, X=4, K=2, every=2, base=10000.0)


def random_moe(c, V, rng):
    E, F, X = c["E"], c["F"], c["X"]
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embeddings.word_embeddings.weight": normal(V, E, std=0.5),
         "embeddings.token_type_embeddings.weight": normal(1, E, std=0.3),
         "emb_ln.weight": 1 + normal(E, std=0.1), "emb_ln.bias": normal(E, std=0.1)}
    for i in range(c["L"]):
        p = f"encoder.layers.{i}."
        t[p + "attn.Wqkv.weight"] = normal(3 * E, E, std=1.8 / np.sqrt(E))
        t[p + "attn.Wqkv.bias"] = normal(3 * E, std=0.1)
        t[p + "attn.out_proj.weight"] = normal(E, E, std=1 / np.sqrt(E))
        t[p + "attn.out_proj.bias"] = normal(E, std=0.1)
        if i % c["every"] == 1:
            t[p + "mlp.router.layer.weight"] = normal(X, E, std=1.5 / np.sqrt(E))
            t[p + "mlp.experts.mlp.w1"] = normal(X * F, E, std=1 / np.sqrt(E))
            t[p + "mlp.experts.mlp.w2"] = normal(X * F, E, std=1 / np.sqrt(F))
            t[p + "mlp.experts.bias"] = normal(E, std=0.1)
        else:
            t[p + "mlp.fc1.weight"] = normal(F, E, std=1 / np.sqrt(E))
            t[p + "mlp.fc1.bias"] = normal(F, std=0.1)
            t[p + "mlp.fc2.weight"] = normal(E, F, std=1 / np.sqrt(F))
            t[p + "mlp.fc2.bias"] = normal(E, std=0.1)
        for n in ("norm1", "norm2"):
            t[p + n + ".weight"] = 1 + normal(E, std=0.1)
            t[p + n + ".bias"] = normal(E, std=0.1)
    return t


def moe(c, w, p, x):
    """NomicMoELayer: route, weight the top-k experts' outputs by their p, add the bias."""
    E, F, X = c["E"], c["F"], c["X"]
    probs = torch.softmax(x @ w[p + "mlp.router.layer.weight"].T, dim=-1)
    top_weights, top_experts = torch.topk(probs, c["K"], dim=-1)
    w1 = w[p + "mlp.experts.mlp.w1"].view(X, F, E)
    w2 = w[p + "mlp.experts.mlp.w2"].view(X, F, E)
    out = torch.zeros_like(x)
    for e in range(X):
        rows, slot = torch.where(top_experts == e)
        if len(rows):
            out.index_add_(0, rows, gelu(x[rows] @ w1[e].T) @ w2[e]
                           * top_weights[rows, slot, None])
    return out + w[p + "mlp.experts.bias"]


def forward(c, w, ids):
    """Last hidden states (T, E) of one unpadded sequence, float64."""
    T, H, E, eps = len(ids), c["H"], c["E"], 1e-5
    D = E // H
    x = (w["embeddings.word_embeddings.weight"][torch.tensor(ids)]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = layer_norm(x, w["emb_ln.weight"], w["emb_ln.bias"], eps)
    inv_freq = 1.0 / (c["base"] ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    cos, sin = torch.cos(freqs), torch.sin(freqs)
    for i in range(c["L"]):
        p = f"encoder.layers.{i}."
        lin = lambda v, n: v @ w[p + n + ".weight"].T + w[p + n + ".bias"]
        q, k, v = lin(x, "attn.Wqkv").view(T, 3, H, D).unbind(1)
        q = apply_rotary_emb_torch(q, cos, sin).transpose(0, 1)
        k = apply_rotary_emb_torch(k, cos, sin).transpose(0, 1)
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(D), dim=-1)
        attn = lin((a @ v.transpose(0, 1)).transpose(0, 1).reshape(T, E), "attn.out_proj")
        x = layer_norm(attn + x, w[p + "norm1.weight"], w[p + "norm1.bias"], eps)
        y = moe(c, w, p, x) if i % c["every"] == 1 else lin(gelu(lin(x, "mlp.fc1")), "mlp.fc2")
        x = layer_norm(y + x, w[p + "norm2.weight"], w[p + "norm2.bias"], eps)
    return x


def main(out):
    rng = np.random.default_rng(20261128)
    folder = case_folder(out, "nomic-moe")
    vocab = vocabulary([t for _, t in TEXTS] + list(PROMPTS.values()))
    tokenizer = os.path.join(folder, "tokenizer.json")
    json.dump(tokenizer_json(vocab, "template"), open(tokenizer, "w", encoding="utf-8"),
              ensure_ascii=False)
    tensors, w = store(random_moe(C, len(vocab), rng), "F32")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    code = "nomic-ai/nomic-bert-2048--"
    config = {"activation_function": "gelu", "add_pooling_layer": False,
              "architectures": ["NomicBertModel"], "attn_pdrop": 0.0,
              "auto_map": {"AutoConfig": code + "configuration_hf_nomic_bert.NomicBertConfig",
                           "AutoModel": code + "modeling_hf_nomic_bert.NomicBertModel"},
              "bos_token_id": None, "causal": False, "dense_seq_output": True,
              "embd_pdrop": 0.1, "eos_token_id": None, "expert_choice_router": False,
              "ffn_div": 1, "fused_bias_fc": True, "fused_dropout_add_ln": True,
              "initializer_range": 0.02, "layer_norm_epsilon": 1e-05,
              "max_trained_positions": 2048, "mlp_fc1_bias": True, "mlp_fc2_bias": True,
              "model_type": "nomic_bert", "moe_every_n_layers": C["every"],
              "moe_impl": "megablocks", "moe_normalize_expert_weights": False,
              "moe_resid_pdrop": 0.0, "moe_top_k": C["K"], "n_embd": C["E"], "n_head": C["H"],
              "n_inner": C["F"], "n_layer": C["L"], "n_positions": 2048, "num_experts": C["X"],
              "num_shared_experts": 0, "pad_token_id": 1, "pad_vocab_size_multiple": 64,
              "parallel_block": False, "parallel_block_tied_norm": False, "prenorm": False,
              "qkv_proj_bias": True, "reorder_and_upcast_attn": False, "resid_pdrop": 0.0,
              "rotary_emb_base": C["base"], "rotary_emb_fraction": 1.0,
              "rotary_emb_interleaved": False, "rotary_emb_scale_base": None,
              "rotary_scaling_factor": None, "router_aux_loss_coef": 0.1,
              "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True,
              "torch_dtype": "float32", "transformers_version": "4.47.1",
              "type_vocab_size": 1, "use_cache": True, "use_flash_attn": True,
              "use_rms_norm": None, "use_xentropy": True, "vocab_size": len(vocab)}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    write_sentence_transformers(folder, C["E"], 512)
    json.dump({"prompts": PROMPTS, "default_prompt_name": None, "similarity_fn_name": "cosine"},
              open(os.path.join(folder, "config_sentence_transformers.json"), "w"), indent=2)
    rows = write_texts(folder, tokenizer, MAX_TOKENS, lambda ids, types: forward(C, w, ids),
                       prompt=PROMPTS["query"])
    print(f"{folder}: L={C['L']} E={C['E']} X={C['X']} top {C['K']}, vocabulary {len(vocab)}, "
          f"{len(rows)} texts")


if __name__ == "__main__":
    main(sys.argv[1])
