#!/usr/bin/python3
"""Golden cases for quantized vectors (src/test/resources/quantize-cases/cases.json): random
float32 vectors (normalized, as pooled vectors are, of 384 dimensions, and of 24 with a few
values set to their dimension's minimum or maximum), each quantized to int8, uint8, binary and
ubinary by a numpy port of sentence-transformers' quantize_embeddings (its own lines: ranges from
the vectors' min and max per dimension, starts and steps in float32, astype's truncation,
np.packbits of the signs), and then more vectors of the same kind quantized with the first ones'
ranges (values outside them left out of the comparison: numpy wraps them, the job clamps).

Usage (Debian's python3-numpy):
  /usr/bin/python3 jobs/samples/make_quantize_cases.py src/test/resources/quantize-cases
"""
import json, os, sys
import numpy as np


def quantize_embeddings(embeddings, precision, ranges=None):
    """sentence_transformers.quantization.quantize_embeddings for these precisions."""
    if precision.endswith("int8"):
        if ranges is None:
            ranges = np.vstack((np.min(embeddings, axis=0), np.max(embeddings, axis=0)))
        starts = ranges[0, :]
        steps = (ranges[1, :] - ranges[0, :]) / 255
        if precision == "uint8":
            return ((embeddings - starts) / steps).astype(np.uint8)
        return ((embeddings - starts) / steps - 128).astype(np.int8)
    if precision == "binary":
        return (np.packbits(embeddings > 0).reshape(embeddings.shape[0], -1) - 128).astype(np.int8)
    if precision == "ubinary":
        return np.packbits(embeddings > 0).reshape(embeddings.shape[0], -1)
    raise ValueError(precision)


def case(rng, n, d, edges):
    v = rng.standard_normal((n, d)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    if edges:
        v[3, :] = v.min(axis=0)
        v[5, :] = v.max(axis=0)
    ranges = np.vstack((np.min(v, axis=0), np.max(v, axis=0)))
    later = rng.standard_normal((n, d)).astype(np.float32)
    later /= np.linalg.norm(later, axis=1, keepdims=True)
    inside = (later >= ranges[0]) & (later <= ranges[1])
    out = {"vectors": v.tolist(), "ranges": ranges.tolist(), "later": later.tolist(),
           "later_inside": inside.astype(int).tolist()}
    for p in ("int8", "uint8", "binary", "ubinary"):
        out[p] = quantize_embeddings(v, p).astype(int).tolist()
    for p in ("int8", "uint8"):
        with np.errstate(all="ignore"):
            out["later_" + p] = quantize_embeddings(later, p, ranges).astype(int).tolist()
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(20261127)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    json.dump([case(rng, 16, 384, False), case(rng, 12, 24, True)],
              open(os.path.join(out, "cases.json"), "w"), separators=(",", ":"))
    print(out, "written")
