#!/usr/bin/python3
"""Golden JinaBERT v2 folders: random checkpoints saved as jina-embeddings-v2's are (model_type
bert, position_embedding_type alibi, auto_map naming jinaai/jina-bert-implementation), with a
WordPiece tokenizer.json of bert-base-uncased's form, cut from BERT's vocabulary
(jobs/samples/family_cases.py):

  - jina-embedding: JinaBertModel, whole, F32, 4 heads (a power of two), feed_forward_type
    geglu, sentence-transformers files (mean pooling, Normalize);
  - jina-mlm: JinaBertForMaskedLM, `bert.` prefix with cls.predictions.*, BF16, 6 heads (so the
    ALiBi slopes take the power-of-two ones and every other of twice as many), reglu.

The reference outputs come from a float64 port of jina-bert-implementation's modeling_bert.py:
LayerNorm(word + token type); per layer softmax(q·kᵀ/√D − slope_h·|j − i|) with
_get_alibi_head_slopes as written, output.dense, LayerNorm(+ x); the GLU MLP
mlp.layernorm(x + wo(act(gated) · non_gated)), gated the first intermediate_size rows of
gated_layers.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_jina_cases.py src/test/resources/jina-cases
"""
import json, math, os, shutil, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import (bert_uncased_tokenizer, gelu, layer_norm, store,  # noqa: E402
                          write_texts)
from make_bert_cases import write_safetensors, write_sentence_transformers  # noqa: E402

MAX_TOKENS = 64
IMPLEMENTATION = "jinaai/jina-bert-implementation"


def _get_alibi_head_slopes(n_heads):
    """jina-bert-implementation's (and the ALiBi paper's)."""
    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio ** i for i in range(n)]
    if math.log2(n_heads).is_integer():
        return get_slopes_power_of_2(n_heads)
    closest_power_of_2 = 2 ** math.floor(math.log2(n_heads))
    return (get_slopes_power_of_2(closest_power_of_2)
            + _get_alibi_head_slopes(2 * closest_power_of_2)[0::2][: n_heads - closest_power_of_2])


def random_jina(c, rng):
    E, F, V = c["E"], c["F"], c["V"]
    normal = lambda *shape, std: rng.normal(0.0, std, size=shape)
    t = {"embeddings.word_embeddings.weight": normal(V, E, std=0.5),
         "embeddings.token_type_embeddings.weight": normal(2, E, std=0.3),
         "embeddings.LayerNorm.weight": 1 + normal(E, std=0.1),
         "embeddings.LayerNorm.bias": normal(E, std=0.1)}
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            t[p + f"attention.self.{n}.weight"] = normal(E, E, std=1.8 / np.sqrt(E))
            t[p + f"attention.self.{n}.bias"] = normal(E, std=0.1)
        t[p + "attention.output.dense.weight"] = normal(E, E, std=1 / np.sqrt(E))
        t[p + "attention.output.dense.bias"] = normal(E, std=0.1)
        t[p + "attention.output.LayerNorm.weight"] = 1 + normal(E, std=0.1)
        t[p + "attention.output.LayerNorm.bias"] = normal(E, std=0.1)
        t[p + "mlp.gated_layers.weight"] = normal(2 * F, E, std=1 / np.sqrt(E))
        t[p + "mlp.wo.weight"] = normal(E, F, std=1 / np.sqrt(F))
        t[p + "mlp.wo.bias"] = normal(E, std=0.1)
        t[p + "mlp.layernorm.weight"] = 1 + normal(E, std=0.1)
        t[p + "mlp.layernorm.bias"] = normal(E, std=0.1)
    return t


def jina(c, w, ids, types):
    """Last hidden states (T, E) of one unpadded sequence, float64."""
    T, H, E, F, eps = len(ids), c["H"], c["E"], c["F"], 1e-12
    D = E // H
    x = layer_norm(w["embeddings.word_embeddings.weight"][torch.tensor(ids)]
                   + w["embeddings.token_type_embeddings.weight"][torch.tensor(types)],
                   w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    context = torch.arange(T)[:, None]
    memory = torch.arange(T)[None, :]
    distance = -torch.abs(memory - context).to(torch.float64)
    alibi = torch.tensor(_get_alibi_head_slopes(H), dtype=torch.float64)[:, None, None] * distance
    act = gelu if c["ff"] == "geglu" else torch.relu
    for i in range(c["L"]):
        p = f"encoder.layer.{i}."
        lin = lambda v, n: v @ w[p + n + ".weight"].T + w[p + n + ".bias"]
        q, k, v = (lin(x, f"attention.self.{n}").view(T, H, D).transpose(0, 1)
                   for n in ("query", "key", "value"))
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(D) + alibi, dim=-1)
        o = lin((a @ v).transpose(0, 1).reshape(T, E), "attention.output.dense")
        x = layer_norm(o + x, w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], eps)
        g = x @ w[p + "mlp.gated_layers.weight"].T
        h = lin(act(g[:, :F]) * g[:, F:], "mlp.wo")
        x = layer_norm(h + x, w[p + "mlp.layernorm.weight"], w[p + "mlp.layernorm.bias"], eps)
    return x


def write_case(c, out, seed):
    rng = np.random.default_rng(seed)
    folder = os.path.join(out, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    tokenizer = os.path.join(folder, "tokenizer.json")
    c = dict(c, V=len(bert_uncased_tokenizer(tokenizer)))
    values = random_jina(c, rng)
    if c["mlm"]:
        tensors, w = store(values, c["dtype"], "bert.")
        E = c["E"]
        head = {"cls.predictions.transform.dense.weight": rng.normal(0, 0.1, (E, E)),
                "cls.predictions.transform.dense.bias": rng.normal(0, 0.1, (E,)),
                "cls.predictions.transform.LayerNorm.weight": np.ones(E),
                "cls.predictions.transform.LayerNorm.bias": np.zeros(E),
                "cls.predictions.decoder.weight": values["embeddings.word_embeddings.weight"],
                "cls.predictions.decoder.bias": np.zeros(c["V"])}
        tensors.update(store(head, c["dtype"])[0])
    else:
        tensors, w = store(values, c["dtype"])
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    code = IMPLEMENTATION + "--"
    config = {"_name_or_path": IMPLEMENTATION,
              "architectures": ["JinaBertForMaskedLM" if c["mlm"] else "JinaBertModel"],
              "attention_probs_dropout_prob": 0.0, "attn_implementation": "torch",
              "auto_map": {"AutoConfig": code + "configuration_bert.JinaBertConfig",
                           "AutoModel": code + "modeling_bert.JinaBertModel",
                           "AutoModelForMaskedLM": code + "modeling_bert.JinaBertForMaskedLM",
                           "AutoModelForSequenceClassification":
                               code + "modeling_bert.JinaBertForSequenceClassification"},
              "classifier_dropout": None, "emb_pooler": "mean", "feed_forward_type": c["ff"],
              "gradient_checkpointing": False, "hidden_act": "gelu",
              "hidden_dropout_prob": 0.1, "hidden_size": c["E"], "initializer_range": 0.02,
              "intermediate_size": c["F"], "layer_norm_eps": 1e-12,
              "max_position_embeddings": 8192, "model_max_length": 8192, "model_type": "bert",
              "num_attention_heads": c["H"], "num_hidden_layers": c["L"], "pad_token_id": 0,
              "position_embedding_type": "alibi", "torch_dtype": "float32",
              "transformers_version": "4.26.0", "type_vocab_size": 2, "use_cache": True,
              "vocab_size": c["V"]}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    if not c["mlm"]:
        write_sentence_transformers(folder, c["E"], 8192)
    rows = write_texts(folder, tokenizer, MAX_TOKENS, lambda ids, types: jina(c, w, ids, types))
    print(f"{folder}: L={c['L']} E={c['E']} H={c['H']} {c['ff']} {c['dtype']}, "
          f"vocabulary {c['V']}, {len(rows)} texts")


CASES = [
    dict(name="jina-embedding", L=2, E=32, H=4, F=48, dtype="F32", ff="geglu", mlm=False),
    dict(name="jina-mlm", L=2, E=36, H=6, F=64, dtype="BF16", ff="reglu", mlm=True),
]

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n, case in enumerate(CASES):
        write_case(case, out, 20261129 + n)
