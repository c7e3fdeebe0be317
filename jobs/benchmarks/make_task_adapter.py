#!/usr/bin/python3
"""A task-adapter copy of a decoder benchmark folder (jobs/benchmarks/make_qwen3_bench_model.py), for
jobs/benchmarks/bench-task: OUT links every file of MODEL and adds `adapters/retrieval/`, a random
PEFT LoRA adapter (r 32, lora_alpha 64, F32) on every q, k, v, o, gate, up and down projection of
every layer, as PEFT saves one.

Usage: /usr/bin/python3 jobs/benchmarks/make_task_adapter.py MODEL OUT
"""
import json, os, sys
import torch

from safetensors_torch import write_random_safetensors

model, out = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(out, "adapters", "retrieval"), exist_ok=True)
for name in os.listdir(model):
    target = os.path.join(out, name)
    if not os.path.exists(target):
        os.symlink(os.path.abspath(os.path.join(model, name)), target)
cfg = json.load(open(os.path.join(model, "config.json")))
E, H, K, F = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["intermediate_size"]
D = cfg.get("head_dim") or E // H
R = 32
sizes = {"self_attn.q_proj": (H * D, E), "self_attn.k_proj": (K * D, E),
         "self_attn.v_proj": (K * D, E), "self_attn.o_proj": (E, H * D),
         "mlp.gate_proj": (F, E), "mlp.up_proj": (F, E), "mlp.down_proj": (E, F)}
shapes = {}
for i in range(cfg["num_hidden_layers"]):
    for module, (rows, cols) in sizes.items():
        shapes[f"base_model.model.layers.{i}.{module}.lora_A.weight"] = (R, cols)
        shapes[f"base_model.model.layers.{i}.{module}.lora_B.weight"] = (rows, R)
folder = os.path.join(out, "adapters", "retrieval")
write_random_safetensors(os.path.join(folder, "adapter_model.safetensors"), shapes, "F32",
                         torch.Generator().manual_seed(3))
json.dump({"peft_type": "LORA", "r": R, "lora_alpha": 2 * R, "bias": "none",
           "target_modules": [m.split(".")[1] for m in sizes], "use_rslora": False,
           "use_dora": False, "fan_in_fan_out": False, "modules_to_save": None},
          open(os.path.join(folder, "adapter_config.json"), "w"), indent=2)
print(f"{out}: {model} with a rank-{R} adapter on {len(shapes) // 2} projections")
