#!/usr/bin/python3
"""A golden NV-Embed-v2 folder, saved as nvidia/NV-Embed-v2 holds it: config.json of
NVEmbedModel (model_type nvembed, its auto_map, text_config a Mistral of model_type bidir_mistral
with a `sliding_window` its code never applies, latent_attention_config, is_mask_instruction,
add_eos), F16 shards with their index, `embedding_model.` for the Mistral and
`latent_attention_model.` for the latent-attention block, and a Llama-form tokenizer
(make_mistral_cases.tokenizer_json: `<s>` added, byte fallback) with its tokenizer_config.json
(add_eos_token false, eos `</s>`). No sentence-transformers files: the model's own encode pools.

The reference ports modeling_nvembed.py in float64: input_transform_func's text, instruction +
text + eos token as text, tokenized with `<s>` before it and cut at max_length (so a cut text
loses its `</s>`), nothing stripped; BidirectionalMistralModel (modeling_mistral.py's layers with
is_causal false and the padding mask alone: family_cases.decoder with no causal mask and no
window); LatentAttentionModel on every token: h + to_out(attend(to_q(LN(h)), to_kv(LN_c(latents))))
through num_cross_heads heads of cross_dim_head (SDPA's scale), then h + net.2(GEGLU(net.0(LN(h))));
the mean over the positions its pool mask keeps, the first len(tokenizer.tokenize(instruction))
being masked (`<s>` and the instruction but its last token), and output_normalize.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_nvembed_cases.py src/test/resources/nvembed-cases
"""
import json, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import TEXTS, case_folder, decoder, gelu, layer_norm, random_decoder, store  # noqa
from family_cases import write_shards  # noqa: E402
from make_mistral_cases import tokenizer_json  # noqa: E402
from make_xlmr_cases import reference_ids  # noqa: E402

MAX_TOKENS = 100
INSTRUCTION = "Instruct: Given a question, retrieve passages that answer the question\nQuery: "
C = dict(L=2, E=32, H=4, K=2, F=48, theta=10000.0, eps=1e-5, bias=False, causal=False,
         latents=8, cross_heads=2, cross_dim=32)


def latent_block(c, rng):
    """LatentAttentionModel's parameters: name -> values."""
    E, inner, n = c["E"], c["cross_heads"] * c["cross_dim"], c["latents"]
    ln = lambda: (1 + rng.normal(0, 0.1, E), rng.normal(0, 0.1, E))
    a, b = "cross_attend_blocks.0.", "cross_attend_blocks.1."
    values = {"latents": rng.normal(0, 1.0, (n, E)),
              a + "fn.to_q.weight": rng.normal(0, 1 / np.sqrt(E), (inner, E)),
              a + "fn.to_kv.weight": rng.normal(0, 1 / np.sqrt(E), (2 * inner, E)),
              a + "fn.to_out.weight": rng.normal(0, 1 / np.sqrt(inner), (E, inner)),
              b + "fn.net.0.weight": rng.normal(0, 1 / np.sqrt(E), (8 * E, E)),
              b + "fn.net.0.bias": rng.normal(0, 0.1, 8 * E),
              b + "fn.net.2.weight": rng.normal(0, 1 / np.sqrt(4 * E), (E, 4 * E)),
              b + "fn.net.2.bias": rng.normal(0, 0.1, E)}
    for norm in (a + "norm", a + "norm_context", b + "norm"):
        values[norm + ".weight"], values[norm + ".bias"] = ln()
    return values


def latent_attention(c, w, h):
    """LatentAttentionModel.forward on the states h (T, E), before its masked mean."""
    H, D = c["cross_heads"], c["cross_dim"]
    a, b = "cross_attend_blocks.0.", "cross_attend_blocks.1."
    x = layer_norm(h, w[a + "norm.weight"], w[a + "norm.bias"], 1e-5)
    context = layer_norm(w["latents"], w[a + "norm_context.weight"], w[a + "norm_context.bias"],
                         1e-5)
    q = (x @ w[a + "fn.to_q.weight"].T).view(-1, H, D).transpose(0, 1)
    k, v = (context @ w[a + "fn.to_kv.weight"].T).chunk(2, dim=-1)
    k, v = k.view(-1, H, D).transpose(0, 1), v.view(-1, H, D).transpose(0, 1)
    out = torch.softmax(q @ k.transpose(1, 2) / np.sqrt(D), dim=-1) @ v
    h = out.transpose(0, 1).reshape(h.shape[0], H * D) @ w[a + "fn.to_out.weight"].T + h
    y = layer_norm(h, w[b + "norm.weight"], w[b + "norm.bias"], 1e-5)
    y = y @ w[b + "fn.net.0.weight"].T + w[b + "fn.net.0.bias"]
    half, gates = y.chunk(2, dim=-1)
    return (half * gelu(gates)) @ w[b + "fn.net.2.weight"].T + w[b + "fn.net.2.bias"] + h


def main(out):
    rng = np.random.default_rng(20261201)
    folder = case_folder(out, "nv-embed-v2")
    tokenizer = os.path.join(folder, "tokenizer.json")
    content, size = tokenizer_json()
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False, indent=1)
    c = dict(C, V=size)
    text_tensors, w = store(random_decoder(c, rng), "F16", "embedding_model.")
    latent_tensors, lw = store(latent_block(c, rng), "F16", "latent_attention_model.")
    write_shards(folder, {**text_tensors, **latent_tensors})
    text_config = {"_name_or_path": "nvidia/NV-Embed-v2", "add_cross_attention": False,
                   "architectures": ["MistralModel"], "bos_token_id": 1, "eos_token_id": 2,
                   "hidden_act": "silu", "hidden_size": c["E"], "initializer_range": 0.02,
                   "intermediate_size": c["F"], "max_position_embeddings": 32768,
                   "model_type": "bidir_mistral", "num_attention_heads": c["H"],
                   "num_hidden_layers": c["L"], "num_key_value_heads": c["K"],
                   "rms_norm_eps": 1e-05, "rope_theta": c["theta"], "sliding_window": 4,
                   "tie_word_embeddings": False, "torch_dtype": "float16", "use_cache": True,
                   "vocab_size": size}
    config = {"add_eos": True, "add_pad_token": True, "architectures": ["NVEmbedModel"],
              "auto_map": {"AutoConfig": "configuration_nvembed.NVEmbedConfig",
                           "AutoModel": "modeling_nvembed.NVEmbedModel"},
              "hidden_size": c["E"], "is_mask_instruction": True,
              "latent_attention_config": {"model_type": "latent_attention",
                                          "hidden_dim": c["E"], "latent_dim": c["E"],
                                          "num_cross_heads": c["cross_heads"],
                                          "cross_dim_head": c["cross_dim"],
                                          "num_latents_value": c["latents"],
                                          "output_normalize": True},
              "mask_type": "b", "model_type": "nvembed", "padding_side": "right",
              "text_config": text_config, "torch_dtype": "float16",
              "transformers_version": "4.42.4"}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    json.dump({"add_bos_token": True, "add_eos_token": False, "bos_token": "<s>",
               "clean_up_tokenization_spaces": False, "eos_token": "</s>", "legacy": True,
               "model_max_length": 1000000000000000019884624838656, "pad_token": "</s>",
               "padding_side": "right", "tokenizer_class": "LlamaTokenizer",
               "unk_token": "<unk>"},
              open(os.path.join(folder, "tokenizer_config.json"), "w"), indent=2)
    masked = len(reference_ids(tokenizer, [{"id": "i", "a": INSTRUCTION}], 1000)[0]["input_ids"]) - 1
    rows = reference_ids(tokenizer, [{"id": i, "a": INSTRUCTION + t + "</s>"} for i, t in TEXTS],
                         MAX_TOKENS)
    assert any(r["full_length"] > MAX_TOKENS for r in rows), "no text is cut"
    out_rows = []
    for row, (_, text) in zip(rows, TEXTS):
        h = decoder(c, w, row["input_ids"])
        pooled = latent_attention(c, lw, h)[masked:].mean(0)
        out_rows.append({"id": row["id"], "a": text, "input_ids": row["input_ids"],
                         "tokens": row["tokens"],
                         "last_hidden_state": [[float(f"{v:.8g}") for v in r] for r in h.tolist()],
                         "pooled": [float(f"{v:.10g}") for v in (pooled / pooled.norm()).tolist()]})
    json.dump(out_rows, open(os.path.join(folder, "texts.json"), "w", encoding="utf-8"),
              separators=(",", ":"), ensure_ascii=False)
    json.dump({"instruction": INSTRUCTION, "masked_positions": masked},
              open(os.path.join(folder, "instruction.json"), "w"), indent=2)
    print(f"{folder}: vocabulary {size}, instruction masks {masked} positions, "
          f"{len(out_rows)} texts")


if __name__ == "__main__":
    main(sys.argv[1])
