#!/usr/bin/python3
"""The PyTorch port of ModernBERT (jobs/samples/make_modernbert_cases.py's, modeling_modernbert.py's eager
path: every layer scores all T × T pairs, local layers mask those beyond the window) in float32 on
the ids of jobs/samples/make-long-documents, one document at a time, as a whole process: it reads the
folder's safetensors and config.json, then prints tokens and seconds.

Usage: /usr/bin/python3 jobs/benchmarks/bench_long_pytorch.py --model DIR --ids FILE.jsonl [--threads N]
"""
import argparse, json, os, sys, time
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "samples"))
from make_modernbert_cases import modernbert  # noqa: E402
from safetensors_torch import read_safetensors  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--ids", required=True)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    start = time.time()
    config = json.load(open(os.path.join(a.model, "config.json")))
    w = read_safetensors(os.path.join(a.model, "model.safetensors"))
    c = {"L": config["num_hidden_layers"], "E": config["hidden_size"],
         "H": config["num_attention_heads"], "eps": config["norm_eps"],
         "act": {"gelu": "gelu", "gelu_pytorch_tanh": "gelu_new"}[config["hidden_activation"]],
         "every": config["global_attn_every_n_layers"],
         "local_attention": config["local_attention"],
         "global_theta": config["global_rope_theta"], "local_theta": config["local_rope_theta"]}
    rows = [json.loads(line) for line in open(a.ids)]
    loaded = time.time()
    tokens = 0
    with torch.no_grad():
        for row in rows:
            h = modernbert(c, w, row["ids"])
            mean = h.mean(0)
            _ = mean / mean.norm()
            tokens += len(row["ids"])
    done = time.time()
    print(f"pytorch: {len(rows)} documents, {tokens} tokens, load {loaded - start:.1f} s, "
          f"forward {done - loaded:.1f} s ({tokens / (done - loaded):.0f} tokens/s), "
          f"{a.threads} threads")


if __name__ == "__main__":
    main()
