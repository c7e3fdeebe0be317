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


def write_random_safetensors(path, shapes, dtype, generator):
    """A safetensors file of random tensors of these shapes ({name: shape}, in order), BF16 or
    F32: matrices N(0, 1 / fan_in), norm scales 1 + N(0, 0.01), other vectors N(0, 0.01); written
    a tensor at a time, so that a billion parameters never sit in memory at once."""
    width = {"BF16": 2, "F32": 4}[dtype]
    header, off = {}, 0
    for name, shape in shapes.items():
        n = int(np.prod(shape)) * width
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + n]}
        off += n
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for name, shape in shapes.items():
            noise = torch.randn(shape, generator=generator)
            if len(shape) == 2:
                t = noise / (shape[-1] ** 0.5)
            elif name.endswith(("norm.weight", "ln.weight", "norm1.weight", "norm2.weight")):
                t = 1 + 0.1 * noise
            else:
                t = 0.1 * noise
            f.write(t.to(torch.bfloat16).view(torch.int16).numpy().tobytes() if dtype == "BF16"
                    else t.float().numpy().tobytes())
