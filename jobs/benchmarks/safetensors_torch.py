"""A Hugging Face folder's safetensors read as float32 torch tensors (BF16 and F16 widened), for
the benchmarks' PyTorch ports and their peers' ONNX exports (jobs/benchmarks/peers/onnx_peer.py).
"""
import json
import os
import struct

import numpy as np
import torch


def read_safetensors(path, strip=""):
    """The tensors of one safetensors file by name (a leading `strip` taken off), float32."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        raw = np.frombuffer(data, dtype=np.uint8, count=b - a, offset=a)
        if info["dtype"] == "BF16":
            t = torch.from_numpy(raw.view(np.int16).copy()).view(torch.bfloat16)
        elif info["dtype"] == "F16":
            t = torch.from_numpy(raw.view(np.float16).copy())
        else:
            t = torch.from_numpy(raw.view(np.float32).copy())
        name = name[len(strip):] if strip and name.startswith(strip) else name
        out[name] = t.float().reshape(info["shape"])
    return out


def read_folder(folder, strip=""):
    """Every tensor of a folder's model.safetensors, or of the shards its index names."""
    index = os.path.join(folder, "model.safetensors.index.json")
    files = (sorted(set(json.load(open(index))["weight_map"].values()))
             if os.path.exists(index) else ["model.safetensors"])
    weights = {}
    for file in files:
        weights.update(read_safetensors(os.path.join(folder, file), strip))
    return weights
