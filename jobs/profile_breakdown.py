#!/usr/bin/python3
"""Where a job's task time goes, from a Java Flight Recorder file of the job: the samples of Spark's task threads, Java code (jdk.ExecutionSample, every
10 ms in JFR's profile settings) and native code such as OpenBLAS (jdk.NativeMethodSample, every
20 ms), each weighted by its period, put in the first category whose frame is on its stack.

Usage:
  JAVA_OPTS="-XX:StartFlightRecording=filename=/tmp/job.jfr,settings=profile" \
    jobs/encode --config FILE
  /usr/bin/python3 jobs/profile_breakdown.py /tmp/job.jfr
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


def main(path):
    data = json.loads(subprocess.check_output(
        ["jfr", "print", "--json", "--events", "jdk.ExecutionSample,jdk.NativeMethodSample",
         "--stack-depth", "96", path]))
    weights = collections.Counter()
    for event in data["recording"]["events"]:
        thread = event["values"]["sampledThread"]["javaName"] or ""
        if not thread.startswith("Executor task launch worker"):
            continue
        weights[category(list(frames(event)))] += PERIOD_MS[event["type"]]
    total = sum(weights.values())
    for label, w in weights.most_common():
        print(f"{100.0 * w / total:5.1f} %  {label}")
    print(f"({total / 1000:.1f} sampled task-seconds)")


if __name__ == "__main__":
    main(sys.argv[1])
