#!/usr/bin/python3
"""Writes the int8 form of an ONNX export (jobs/benchmarks/peers/onnx_export.py) as ONNX Runtime's
dynamic quantization writes it, for the int8 ONNX Runtime peer of jobs/benchmarks/bench-bert-base.

onnxruntime.quantization.quantize_dynamic(per_channel=True, weight_type=QInt8) is not installable here
(no PyPI), so this is a port of what it does to a MatMul whose second input is a weight: the weight
quantized per output column, symmetric int8 (scale = max|w| / 127, zero point 0, numpy's round half to
even), and the node replaced by DynamicQuantizeLinear (the activation per tensor, uint8, on the fly) ->
MatMulInteger -> Cast(float) -> Mul(activation scale x weight scale), the pattern ONNX Runtime's graph
optimizer fuses into DynamicQuantizeMatMul. PyTorch exports the attention's output projection as a
Gemm(transB) on a 2-D reshape; it is first written as the MatMul + Add a Hugging Face BERT export has,
so that every linear layer is quantized, as in langchain4j's int8 MiniLM (../shared/tools/ort-text).

Usage: /usr/bin/python3 jobs/benchmarks/peers/onnx_quantize.py IN.onnx OUT.onnx
Needs Debian's python3-onnx.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def gemms_as_matmuls(graph, weights):
    nodes = []
    for node in graph.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if (node.op_type == "Gemm" and node.input[1] in weights and attrs.get("transB") == 1
                and attrs.get("transA", 0) == 0 and attrs.get("alpha", 1.0) == 1.0
                and attrs.get("beta", 1.0) == 1.0):
            w = weights[node.input[1]]
            name = node.input[1] + "_t"
            weights[name] = np.ascontiguousarray(w.T)
            product = node.output[0] + "_matmul"
            nodes.append(helper.make_node("MatMul", [node.input[0], name], [product]))
            if len(node.input) > 2:
                nodes.append(helper.make_node("Add", [product, node.input[2]], [node.output[0]]))
            else:
                nodes[-1].output[0] = node.output[0]
        else:
            nodes.append(node)
    return nodes


def quantized(weight):
    """Per output column, symmetric int8, as quantize_dynamic's QInt8 per channel."""
    absmax = np.abs(weight).max(axis=0).astype(np.float32)
    scale = np.where(absmax == 0, np.float32(1.0), absmax / np.float32(127.0)).astype(np.float32)
    q = np.clip(np.round(weight / scale), -127, 127).astype(np.int8)
    return q, scale


def main(source, target):
    model = onnx.load(source)
    graph = model.graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    nodes = gemms_as_matmuls(graph, weights)
    out_nodes, count = [], 0
    for node in nodes:
        w = weights.get(node.input[1]) if node.op_type == "MatMul" else None
        if w is None or w.ndim != 2:
            out_nodes.append(node)
            continue
        count += 1
        x, name, y = node.input[0], node.input[1], node.output[0]
        q, scale = quantized(w)
        weights[name + "_quantized"] = q
        weights[name + "_scale"] = scale
        weights[name + "_zero_point"] = np.zeros(q.shape[1], dtype=np.int8)
        out_nodes += [
            helper.make_node("DynamicQuantizeLinear", [x], [y + "_xq", y + "_xscale", y + "_xzp"]),
            helper.make_node("MatMulInteger", [y + "_xq", name + "_quantized", y + "_xzp",
                                               name + "_zero_point"], [y + "_int32"]),
            helper.make_node("Cast", [y + "_int32"], [y + "_float"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [y + "_xscale", name + "_scale"], [y + "_scales"]),
            helper.make_node("Mul", [y + "_float", y + "_scales"], [y]),
        ]
    used = {i for n in out_nodes for i in n.input}
    del graph.initializer[:]
    graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in weights.items() if k in used)
    del graph.node[:]
    graph.node.extend(out_nodes)
    if sum(i.ByteSize() for i in graph.initializer) < 1.8e9:
        onnx.checker.check_model(model)
        onnx.save(model, target)
    else:   # past protobuf's 2 GB (a 1B model's float32 embedding table): weights beside it
        onnx.save(model, target, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=os.path.basename(target) + ".data")
        onnx.checker.check_model(target)
    print(f"wrote {target}: {count} products in int8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
