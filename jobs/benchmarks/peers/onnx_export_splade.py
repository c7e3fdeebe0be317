#!/usr/bin/python3
"""Writes a SPLADE folder (a BERT masked-LM with SpladePooling, jobs/benchmarks/make_head_models.py)
as an ONNX file for the ONNX Runtime peer of jobs/benchmarks/bench-enrich: input_ids and
attention_mask (batch, length), both int64, in; each text's sparse vector (batch, V) out, as
sentence-transformers' SparseEncoder computes it: BERT's post-norm layers (token type 0, learned
positions), the masked-LM head (dense, activation, LayerNorm, the word embeddings tied as the
decoder, plus its bias), then max over the text's tokens of log(1 + relu(logit)). Each linear
weight is stored transposed, (in, out), the decoder too, so that every product is a MatMul on an
initializer, which jobs/benchmarks/peers/onnx_quantize.py turns into ONNX Runtime's dynamic int8.

Usage: /usr/bin/python3 jobs/benchmarks/peers/onnx_export_splade.py MODEL_DIR OUT.onnx
Needs Debian's python3-torch (its exporter needs no onnx package) and python3-onnx.
"""
import json
import os
import sys

import numpy as np
import torch

from onnx_peer import export, folder_tensors, parameters

model_dir, out = sys.argv[1], sys.argv[2]
cfg = json.load(open(os.path.join(model_dir, "config.json")))
E, H, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
D = E // H
eps = cfg.get("layer_norm_eps", 1e-12)
gelu = {"gelu": lambda x: torch.nn.functional.gelu(x),
        "gelu_new": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}[cfg["hidden_act"]]


class Splade(torch.nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.w = parameters(weights, lambda name: name.startswith("embeddings."))
        decoder = weights.get("cls.predictions.decoder.weight",
                              weights["embeddings.word_embeddings.weight"])
        self.w["decoder"] = torch.nn.Parameter(decoder.t().contiguous(), requires_grad=False)

    def p(self, name):
        return self.w[name.replace(".", "__")]

    def ln(self, x, prefix):
        return torch.nn.functional.layer_norm(x, (E,), self.p(prefix + ".weight"),
                                              self.p(prefix + ".bias"), eps)

    def lin(self, x, name):
        return x @ self.p(name + ".weight") + self.p(name + ".bias")

    def forward(self, input_ids, attention_mask):
        B, T = input_ids.shape
        positions = torch.arange(T)
        x = (torch.nn.functional.embedding(input_ids, self.p("embeddings.word_embeddings.weight"))
             + self.p("embeddings.position_embeddings.weight")[positions][None]
             + self.p("embeddings.token_type_embeddings.weight")[0])
        x = self.ln(x, "embeddings.LayerNorm")
        padding = (1.0 - attention_mask.float())[:, None, None, :] * torch.finfo(torch.float32).min
        for i in range(L):
            p_ = f"encoder.layer.{i}."
            q, k, v = (self.lin(x, p_ + "attention.self." + n).view(B, T, H, D).transpose(1, 2)
                       for n in ("query", "key", "value"))
            s = q @ k.transpose(-1, -2) / np.sqrt(D) + padding
            ctx = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, E)
            x = self.ln(x + self.lin(ctx, p_ + "attention.output.dense"),
                        p_ + "attention.output.LayerNorm")
            h = gelu(self.lin(x, p_ + "intermediate.dense"))
            x = self.ln(x + self.lin(h, p_ + "output.dense"), p_ + "output.LayerNorm")
        h = self.ln(gelu(self.lin(x, "cls.predictions.transform.dense")),
                    "cls.predictions.transform.LayerNorm")
        logits = h @ self.p("decoder") + self.p("cls.predictions.bias")
        weights = torch.log1p(torch.relu(logits)) * attention_mask.float()[:, :, None]
        return weights.max(dim=1).values


model = Splade(folder_tensors(model_dir, strip="bert.")).eval()
export(model, out, "sparse", pooled=True)
print(f"wrote {out}: {L} layers, E = {E}, {H} heads, masked-LM head to "
      f"{model.p('decoder').shape[1]} terms, SPLADE max pooling")
