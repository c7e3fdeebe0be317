"""Golden conversions for model.precision, written to src/test/resources/precision/conversions.json.

- bfloat16: float32 values (ties, subnormals, infinities, NaN, random) and the bits PyTorch's
  `.to(torch.bfloat16)` gives them.
- int8 weights: a numpy port of ONNX Runtime's `quantize_dynamic` weight quantization, per channel
  (an output row of PyTorch's (out, in) layout), symmetric int8 (`compute_scale_zp` with
  symmetric=True, qmin/qmax -127/127; `quantize_nparray`: round half to even, clip).
- uint8 activations: a numpy port of ONNX's DynamicQuantizeLinear applied to each row (token) on
  its own, for qmax 255 (VNNI) and 127 (processors whose int8 pairs saturate).

Values are float32 bit patterns (ints) so JSON carries them exactly.
Run with Debian's python3-torch: /usr/bin/python3 jobs/samples/make_precision_cases.py
"""
import json
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "src", "test", "resources", "precision",
                   "conversions.json")


def bits(a):
    return np.asarray(a, dtype=np.float32).view(np.int32).ravel().tolist()


def ort_weight_int8(w):
    """onnxruntime.quantization.quant_utils: per channel along the output rows, symmetric int8."""
    q = np.zeros(w.shape, dtype=np.int8)
    scales = np.zeros(w.shape[0], dtype=np.float32)
    qmin, qmax = np.float32(-127), np.float32(127)
    for r in range(w.shape[0]):
        rmin = np.minimum(w[r].min(), np.float32(0))
        rmax = np.maximum(w[r].max(), np.float32(0))
        absmax = np.maximum(np.abs(rmin), np.abs(rmax))
        rmin, rmax = -absmax, +absmax
        # compute_scale_zp: the range over the steps in float64, then float32; symmetric zero 0
        scale = np.float64(rmax - rmin) / (np.float64(qmax) - np.float64(qmin))
        scale = np.float32(1.0) if scale < np.finfo(np.float32).tiny else np.float32(scale)
        zero_point = np.float32(0)
        scales[r] = scale
        q[r] = np.clip(np.round(w[r] / scale) + zero_point, qmin, qmax).astype(np.int8)
    return q, scales


def dynamic_quantize_linear_rows(x, qmax):
    """ONNX DynamicQuantizeLinear, one row at a time: uint8 with scale and zero point."""
    q = np.zeros(x.shape, dtype=np.uint8)
    scales = np.zeros(x.shape[0], dtype=np.float32)
    zeros = np.zeros(x.shape[0], dtype=np.int32)
    for t in range(x.shape[0]):
        xmin = np.minimum(np.float32(0), x[t].min())
        xmax = np.maximum(np.float32(0), x[t].max())
        scale = np.float32((xmax - xmin) / np.float32(qmax))
        if scale < np.finfo(np.float32).tiny:
            scale, zero = np.float32(1.0), 0
        else:
            zero = int(np.round(np.clip(np.float32(0) - xmin / scale, 0, qmax)))
        scales[t] = scale
        zeros[t] = zero
        q[t] = np.clip(np.round(x[t] / scale) + zero, 0, qmax).astype(np.uint8)
    return q, scales, zeros


def main():
    rng = np.random.default_rng(7)
    special = np.array([0.0, -0.0, 1.0, -1.0, 1.00390625, 1.01171875, 1.005859375, 1.0078125,
                        3.4028235e38, 1e-40, -1e-45, 1.1754944e-38, np.inf, -np.inf,
                        65504.0, 0.1, 1 / 3], dtype=np.float32)
    # ties: the lower 16 bits exactly 0x8000, with odd and even upper halves
    ties = (np.array([0x3F808000, 0x3F818000, 0xBF808000, 0x3F7F8000], dtype=np.uint32)
            .view(np.float32))
    values = np.concatenate([special, ties, rng.standard_normal(200).astype(np.float32) * 3])
    bf16 = torch.from_numpy(values.copy()).to(torch.bfloat16).view(torch.int16).numpy()
    nan_bits = int(torch.tensor([float("nan")]).to(torch.bfloat16).view(torch.int16).item()) & 0xFFFF

    w = (rng.standard_normal((24, 40)) * rng.uniform(0.01, 2, (24, 1))).astype(np.float32)
    w[3] = 0                                  # a row of zeros: scale 1
    w[5, 7] = 2.5 * np.abs(w[5]).max()        # a row with one outlier
    qw, sw = ort_weight_int8(w)

    x = (rng.standard_normal((12, 40)) * rng.uniform(0.1, 8, (12, 1))).astype(np.float32)
    x[2] = np.abs(x[2])                       # only positive: zero point 0
    x[4] = -np.abs(x[4])                      # only negative: zero point qmax
    x[6] = 0                                  # zeros
    x[8, :3] = [40.0, -3.0, 0.5]
    acts = {}
    for qmax in (255, 127):
        q, s, z = dynamic_quantize_linear_rows(x, qmax)
        acts[str(qmax)] = {"values": q.astype(int).ravel().tolist(), "scales": bits(s),
                           "zero_points": z.tolist()}
    case = {
        "bfloat16": {"floats": bits(values), "bits": (bf16.astype(np.int32) & 0xFFFF).tolist(),
                     "nan_bits": nan_bits},
        "int8_weights": {"rows": 24, "cols": 40, "floats": bits(w),
                         "values": qw.astype(int).ravel().tolist(), "scales": bits(sw)},
        "uint8_activations": {"rows": 12, "cols": 40, "floats": bits(x), "by_qmax": acts},
        "made_with": "torch " + torch.__version__ + ", numpy " + np.__version__,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(case, f)
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
