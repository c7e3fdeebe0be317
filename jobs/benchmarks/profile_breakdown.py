#!/usr/bin/python3
"""Where a job's task time goes: the CPU samples of Spark's task threads, each put in the first
category whose frame is on its stack, from either of two profiles of the job:

- async-profiler's collapsed stacks (CPU time, Java and native frames alike; use this one):
    JAVA_OPTS="-agentpath:DIR/libasyncProfiler.so=start,event=cpu,interval=5ms,threads,\
file=/tmp/job.collapsed,collapsed" jobs/encode --config FILE
    /usr/bin/python3 jobs/benchmarks/profile_breakdown.py /tmp/job.collapsed
  (DIR: linux-x64/ inside the jar tools.profiler:async-profiler:4.1 from Maven Central; add
  -Dencoder.float32-products=blas where oneDNN would load beside Spark's start, which crashes
  the profiler's dlopen hook: src/site/markdown/speed.md);
- a Java Flight Recorder file (-XX:StartFlightRecording=filename=/tmp/job.jfr,settings=profile):
  Java code (jdk.ExecutionSample, every 10 ms) and native code such as OpenBLAS
  (jdk.NativeMethodSample, every 20 ms), each weighted by its period. JFR samples a few threads
  a tick and native ones more sparsely: on the real-text job it gave GELU 16.6 % of task time,
  while replacing GELU by ReLU changed the layer's speed by nothing measurable.
"""
import collections, json, subprocess, sys

# (category, a frame's class and method hold this); first match on the stack, top frame first,
# wins, so a matrix product called from attention counts as attention's product.
RULES = [
    ("products: attention (per head)", ("HeadAttention", "RowMajorBlas")),
    ("products: projections, feed-forward", ("RowMajorBlas",)),
    ("attention: softmax, masks, sums", ("HeadAttention",)),
    ("element-wise: layer norm", ("LayerNorm",)),
    ("element-wise: activation (GELU)", ("Activation", "erf")),
    ("element-wise: other (bias, residual, exp)", ("kernel.VectorElementwise",
                                                   "kernel.ScalarElementwise",
                                                   "kernel.Elementwise")),
    ("encoder: buffers, batch assembly", ("model.Encoder", "model.TokenBatch")),
    ("embedding layer", ("TokenEmbeddings",)),
    ("pooling, output rows", ("Pooling", "OutputRows")),
    ("tokenizing", ("TextTokenizer", "huggingface")),
    ("reading Parquet", ("VectorizedParquetRecordReader", "ParquetFileFormat",
                         "FileScanRDD")),
    ("writing Parquet", ("parquet.hadoop", "FileFormatWriter", "ParquetOutputWriter")),
]
PERIOD_MS = {"jdk.ExecutionSample": 10, "jdk.NativeMethodSample": 20}


def frames(event):
    for f in event["values"]["stackTrace"]["frames"]:
        m = f["method"]
        yield m["type"]["name"].replace("/", ".") + "." + m["name"]


def category(names):
    for label, needles in RULES:
        if len(needles) == 2 and needles[0] == "HeadAttention" and needles[1] == "RowMajorBlas":
            if any("RowMajorBlas" in n for n in names) and any("HeadAttention" in n
                                                               for n in names):
                return label
            continue
        for n in names:
            if any(needle in n for needle in needles):
                return label
    return "other (Spark, JVM)"


def collapsed(path):
    """Sample counts per category of the task threads' stacks, and CPU samples per thread kind."""
    weights = collections.Counter()
    threads = collections.Counter()
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            names = stack.split(";")
            thread = names[0]
            kind = ("Spark tasks" if thread.startswith("[Executor task launch worker")
                    else "JIT compiler" if "Compiler" in thread
                    else "garbage collector" if thread.startswith(("[GC", "[G1"))
                    else "driver main" if thread.startswith("[main")
                    else "other threads")
            threads[kind] += int(count)
            if kind == "Spark tasks":
                frames = [n.replace("/", ".") for n in reversed(names[1:])]
                weights[category(frames)] += int(count)
    return weights, threads


def report(weights):
    total = sum(weights.values())
    for label, w in weights.most_common():
        print(f"{100.0 * w / total:5.1f} %  {label}")
    return total


def main(path):
    if not path.endswith(".jfr"):
        weights, threads = collapsed(path)
        total = report(weights)
        print(f"({total} task-thread samples)")
        print("CPU samples by thread:")
        report(threads)
        return
    data = json.loads(subprocess.check_output(
        ["jfr", "print", "--json", "--events", "jdk.ExecutionSample,jdk.NativeMethodSample",
         "--stack-depth", "96", path]))
    weights = collections.Counter()
    for event in data["recording"]["events"]:
        thread = event["values"]["sampledThread"]["javaName"] or ""
        if not thread.startswith("Executor task launch worker"):
            continue
        weights[category(list(frames(event)))] += PERIOD_MS[event["type"]]
    total = report(weights)
    print(f"({total / 1000:.1f} sampled task-seconds)")


if __name__ == "__main__":
    main(sys.argv[1])
