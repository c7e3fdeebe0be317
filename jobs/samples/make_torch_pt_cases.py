#!/usr/bin/python3
"""torch.save files for TorchStateDictTest (src/test/resources/torch-pt-cases): bge-m3's two
heads as it ships them (colbert_linear.pt: Linear(4, 4) in float32, sparse_linear.pt:
Linear(4, 1) in bfloat16, each torch.save of a state dict), their values in expected.json, and
two planted files that must be refused before anything runs: planted-system.pt, a state dict
with an object whose __reduce__ is os.system, and planted-eval.pt, the same with builtins.eval;
colbert_linear-protocol4.pt, the colbert head saved with pickle_protocol=4 (STACK_GLOBAL names
its globals), and int64.pt, a state dict holding an int64 tensor (no weight is one).

Usage (Debian's python3-torch):
  /usr/bin/python3 jobs/samples/make_torch_pt_cases.py src/test/resources/torch-pt-cases
"""
import json, os, sys
import torch


class Planted:
    def __init__(self, call):
        self.call = call

    def __reduce__(self):
        return (self.call, ("echo planted > /tmp/planted-ran",))


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(20261126)
    colbert = torch.nn.Linear(4, 4)
    sparse = torch.nn.Linear(4, 1).to(torch.bfloat16)
    torch.save(colbert.state_dict(), os.path.join(out, "colbert_linear.pt"))
    torch.save(sparse.state_dict(), os.path.join(out, "sparse_linear.pt"))
    expected = {f"{name}.{k}": {"shape": list(v.shape), "values": v.float().flatten().tolist()}
                for name, m in (("colbert_linear", colbert), ("sparse_linear", sparse))
                for k, v in m.state_dict().items()}
    json.dump(expected, open(os.path.join(out, "expected.json"), "w"), indent=1)
    torch.save(colbert.state_dict(), os.path.join(out, "colbert_linear-protocol4.pt"),
               pickle_protocol=4)
    torch.save({"ids": torch.arange(4)}, os.path.join(out, "int64.pt"))
    import builtins
    for name, call in (("planted-system.pt", os.system), ("planted-eval.pt", builtins.eval)):
        torch.save({"weight": colbert.weight.detach(), "x": Planted(call)},
                   os.path.join(out, name))
    print(out, sorted(os.listdir(out)))


if __name__ == "__main__":
    main(sys.argv[1])
