# Shared by the jobs/ scripts (sourced, not run): first-use set-up, then a main class on the
# project's classpath with the JVM options Spark needs.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JAR="$ROOT/target/corpus-encoder.jar"
CLASSPATH_FILE="$ROOT/target/classpath.txt"
# Janino without its jar signature, which would keep its classes out of the archive below (pom.xml)
JANINO_JAR="$ROOT/target/corpus-encoder-janino.jar"
BUILD_STAMP="$ROOT/target/.built"
# Class-data-sharing archive of the classes a job loads: start-up about 3 s faster, made once per
# build by a short run on data-samples/ (see make_cds_archive).
CDS_ARCHIVE="$ROOT/target/corpus-encoder.jsa"
# The Java runtime that recorded it: an archive is valid for that JVM build only, and any other
# (another JDK on the PATH, an update) ignores it without a word and starts 3 s slower.
CDS_ARCHIVE_JAVA="$CDS_ARCHIVE.java"
# The developer tools (benchmarks, sample and case makers, the reference encoder, weights
# writers) live in the test sources; their scripts set TOOLS=1 and find them here.
TOOLS_CLASSES="$ROOT/target/test-classes"

# A benchmark compares whole processes, each on the processor's own kernels. Some machines set
# OPENBLAS_CORETYPE (Haswell on AVX-512 processors), which holds the peers' OpenBLAS (PyTorch's,
# the system's libblas.so.3) to older kernels at about half their rate while the job's start-up
# calibration moves past it: a PyTorch peer took 32.7 s with it and 21.4 to 23.8 s without,
# beside a job of 17 s. The benchmarks drop it for every process they start, and say so;
# BENCH_OPENBLAS_CORETYPE holds every process, job and peers alike, to the one it names.
if [ -n "${TOOLS:-}" ] && [[ "$(basename "$(dirname "$0")")" == benchmarks ]]; then
  if [ -n "${BENCH_OPENBLAS_CORETYPE:-}" ]; then
    export OPENBLAS_CORETYPE=$BENCH_OPENBLAS_CORETYPE
    echo "note: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE for the job and its peers" \
      "(BENCH_OPENBLAS_CORETYPE)" >&2
  elif [ -n "${OPENBLAS_CORETYPE:-}" ]; then
    echo "note: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE unset for this benchmark: the job and its" \
      "peers run on the processor's own kernels (BENCH_OPENBLAS_CORETYPE keeps one for all)" >&2
    unset OPENBLAS_CORETYPE
  fi
  # The kernel's huge-page mode, named beside the figures: the job asks for huge pages on its
  # heap (madvise is enough, jobs/jvm.options), the peers get them only under "always". On a
  # guest whose page faults are dear that decides a peer's time: ONNX Runtime on the 8,192-token
  # document took 55.6 s under madvise and 33.1 s under always, the same hour (speed log).
  if [ -r /sys/kernel/mm/transparent_hugepage/enabled ]; then
    echo "note: transparent huge pages $(grep -o '\[[a-z]*\]' \
      /sys/kernel/mm/transparent_hugepage/enabled | tr -d '[]') (the job asks for them on its" \
      "heap; the peers have them only under always)" >&2
  fi
fi

# apt_install PKG...: installs Debian packages quietly when we are root on a Debian/Ubuntu
# machine, refreshing the package lists and trying once more if the first attempt fails; fails
# (status 1) when it cannot.
apt_install() {
  can_apt_install || return 1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 && return 0
  apt-get update -qq >/dev/null 2>&1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1
}

# Whether apt_install can run here (root, apt-get on PATH).
can_apt_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1
}

# Native BLAS: the job computes on OpenBLAS (kernel.BlasChoice): the system's libblas.so.3 when
# that is OpenBLAS, else the system's libopenblas.so.0 (a libblas.so.3 that is the slow reference
# BLAS is passed over), else the OpenBLAS bundled in a Maven artifact. On a Debian/Ubuntu machine
# where we are root and there is no system OpenBLAS, install it.
ensure_openblas() {
  # ldconfig lives in /sbin, which a non-login shell's PATH may lack. Its list is read whole
  # before grep: with pipefail, grep -q stopping early would fail the pipeline (SIGPIPE).
  local libraries
  libraries=$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true)
  if grep -q 'libopenblas\.so\.0' <<< "$libraries"; then
    return 0
  fi
  if can_apt_install; then
    echo "setup: installing OpenBLAS (Debian package libopenblas0-pthread) for native BLAS" >&2
    apt_install libopenblas0-pthread \
      || echo "setup: could not install OpenBLAS; the job uses the bundled one" >&2
  else
    echo "note: no system OpenBLAS (libopenblas.so.0); the job uses the OpenBLAS bundled in the" \
      "org.bytedeco:openblas jar (run-summary.json names it)." >&2
  fi
}

# Debian's Python with PyTorch, numpy and onnx (python3-torch, python3-numpy, python3-onnx), which
# the benchmarks' peers, model makers and exporters run on (/usr/bin/python3, not a pyenv's):
# installed when missing and we are root on a Debian/Ubuntu machine, else a clear error.
ensure_python_torch() {
  if /usr/bin/python3 -c 'import torch, numpy, onnx' >/dev/null 2>&1; then
    return 0
  fi
  if can_apt_install; then
    echo "setup: installing Debian's python3-torch, python3-numpy and python3-onnx for the" \
      "benchmarks' peers (a few minutes)" >&2
    apt_install python3-torch python3-numpy python3-onnx || true
  fi
  if ! /usr/bin/python3 -c 'import torch, numpy, onnx' >/dev/null 2>&1; then
    echo "error: /usr/bin/python3 cannot import torch, numpy and onnx; the benchmarks need" \
      "Debian's python3-torch, python3-numpy and python3-onnx (apt-get install them)" >&2
    exit 2
  fi
}

# Headless Chromium and its WebDriver, which the report's browser tests drive (Selenium):
# Debian's packages chromium and chromium-driver, installed when missing and we are root on a
# Debian/Ubuntu machine.
ensure_chromium() {
  if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    return 0
  fi
  if can_apt_install; then
    echo "setup: installing Chromium and its driver (Debian packages chromium," \
      "chromium-driver) for the report's browser tests" >&2
    apt_install chromium chromium-driver \
      || echo "setup: could not install Chromium; the report tests will fail" >&2
  else
    echo "warning: no chromium or chromedriver on PATH; the report's browser tests need them" \
      "(apt-get install chromium chromium-driver)" >&2
  fi
}

# Builds the jars and records the classpath when there is no build yet or a source file, the pom or
# a resource is newer than the last one; then makes the start-up archive for that build. With
# TOOLS=1 (the developer scripts under jobs/benchmarks and jobs/samples) the test sources count
# too: the benchmarks and sample makers are compiled with the tests, not shipped in the jar.
ensure_built() {
  if [ -n "${ENCODER_PREBUILT:-}" ]; then   # inside a Maven run that has just packaged
    return 0
  fi
  local sources=("$ROOT/src/main" "$ROOT/pom.xml")
  if [ -n "${TOOLS:-}" ]; then
    sources+=("$ROOT/src/test")
  fi
  if [ ! -f "$BUILD_STAMP" ] || [ ! -f "$JAR" ] || [ ! -f "$JANINO_JAR" ] \
      || { [ -n "${TOOLS:-}" ] && [ ! -d "$TOOLS_CLASSES" ]; } \
      || [ -n "$(find "${sources[@]}" -newer "$BUILD_STAMP" -print -quit)" ]; then
    echo "setup: building with Maven (the first build downloads Spark, a few minutes)" >&2
    # Also writes target/classpath.txt. Maven 3.8 prints colour resets even in quiet batch mode:
    # stripped, so that a log file of the job holds none.
    (cd "$ROOT" && mvn -q -B -ntp -DskipTests package) 2>&1 | sed $'s/\x1b\\[[0-9;]*m//g' >&2
    touch "$BUILD_STAMP"
  fi
  if ! archive_current && [ -d "$ROOT/data-samples/texts.parquet" ]; then
    rm -f "$CDS_ARCHIVE"
    make_cds_archive
  fi
}

# Whether the start-up archive was made from the jars there are now. Any `mvn package` (jobs/test
# runs one) rewrites the Janino jar, and Java then refuses the whole archive without a word: the
# job's Spark start took 7 s against 2.5 (src/site/markdown/speed.md).
archive_current() {
  [ -f "$CDS_ARCHIVE" ] && [ "$CDS_ARCHIVE" -nt "$JAR" ] && [ "$CDS_ARCHIVE" -nt "$JANINO_JAR" ] \
    && [ "$(cat "$CDS_ARCHIVE_JAVA" 2>/dev/null)" = "$(java_identity)" ]
}

# The Java runtime the jobs run on (java on the PATH), from its release file: no JVM started.
java_home() {
  local java
  java=$(command -v java) || return 0
  dirname "$(dirname "$(readlink -f "$java")")"
}

# Its identity (folder and build), which a start-up archive must match.
java_identity() {
  local home
  home=$(java_home)
  echo "$home $(grep -s '^JAVA_RUNTIME_VERSION=' "$home/release")"
}

# Its feature release (17, 21, 25), empty when it has no release file.
java_feature() {
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$(java_home)/release" 2>/dev/null || true
}

# The tools' classes go last, so that the start-up archive, made on the product's classpath,
# still matches its start.
# The runtime classpath: the project's jar, Janino's, then its dependencies (target/classpath.txt).
runtime_classpath() {
  echo "$JAR:$JANINO_JAR:$(cat "$CLASSPATH_FILE")"
}

java_command() {
  local classpath
  classpath=$(runtime_classpath)
  if [ -n "${TOOLS:-}" ]; then
    classpath="$classpath:$TOOLS_CLASSES"
  fi
  # The parallel collector: no concurrent cycles beside the task threads, and large-row jobs peak
  # 15 to 25 % lower than on G1 at the same speed (jobs/jvm.options has the figures). A collector
  # named in JAVA_OPTS replaces it (Java refuses two).
  local collector=-XX:+UseParallelGC option
  for option in ${JAVA_OPTS:-}; do
    case $option in -XX:+Use*GC) collector= ;; esac
  done
  # Java 23 and later warn at Spark's first use of sun.misc.Unsafe's memory access (JEP 471,
  # 498) and a later release will refuse it unless allowed; Java 17 refuses the option itself.
  local unsafe=""
  if [ "$(java_feature)" -ge 23 ] 2>/dev/null; then
    unsafe=--sun-misc-unsafe-memory-access=allow
  fi
  echo java @"$ROOT/jobs/jvm.options" $unsafe -Xmx"${ENCODER_HEAP:-4g}" $collector \
    -cp "$classpath"
}

# Runs the sample job (conf/local.conf: text, tokenizer, report) once with
# -XX:ArchiveClassesAtExit, so later runs map those classes from the archive instead of finding
# them one by one in ~220 jars. Best effort: without it, runs are slower to start, not wrong.
make_cds_archive() {
  echo "setup: recording the classes a job loads, for faster start-up (once per build)" >&2
  local tmp
  tmp=$(mktemp -d)
  cat > "$tmp/warmup.conf" <<CONF
include file("$ROOT/conf/local.conf")
output.path = "$tmp/out"
execution.progress = false
CONF
  # shellcheck disable=SC2046
  OPENBLAS_NUM_THREADS=1 SPARK_LOCAL_IP=127.0.0.1 $(java_command) \
    -XX:ArchiveClassesAtExit="$CDS_ARCHIVE" -Xlog:cds=off -Xlog:cds+dynamic=off \
    io.corpus.encoder.cli.EncodeJob --config "$tmp/warmup.conf" >/dev/null 2>&1 \
    && java_identity > "$CDS_ARCHIVE_JAVA" || rm -f "$CDS_ARCHIVE"
  rm -rf "$tmp"
}

# run_main CLASS ARGS...: runs CLASS in this process's place. One BLAS thread per Spark task
# (OPENBLAS_NUM_THREADS=1) unless set; ENCODER_HEAP sets the heap (default 4g); JAVA_OPTS is added.
run_main() {
  local main_class=$1
  shift
  export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
  export SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}
  local cds=()
  if archive_current; then
    cds=(-XX:SharedArchiveFile="$CDS_ARCHIVE" -Xlog:cds=off -Xlog:cds+dynamic=off)
  fi
  # shellcheck disable=SC2046,SC2086
  exec $(java_command) "${cds[@]}" ${JAVA_OPTS:-} "$main_class" "$@"
}

# For the benchmarks that time whole processes in alternating rounds: the clock in seconds, the
# mean of their arguments, and the kernels a job ran on (OpenBLAS's core type and the library of
# the float32 products from its log, the element-wise kernels' vector width from its run
# summary): print_job_kernels LOG SUMMARY.
now() { date +%s.%N; }
mean() { printf '%s\n' "$@" | awk '{ s += $1 } END { printf "%.2f", s / NR }'; }
print_job_kernels() {
  grep -o 'BLAS [^;]*' "$1" | head -1 | sed 's/^/ours: /' || true
  grep -o 'float32 products on [^;]*' "$1" | head -1 | sed 's/^/ours: /' || true
  grep -o '[A-Za-z]*Elementwise ([^)]*)' "$2" 2>/dev/null | head -1 | sed 's/^/ours: /' || true
}

# precision_runs CONF LIST: the precisions to run the job CONF in again, each written beside CONF
# as NAME-PRECISION.conf (CONF with model.precision added). LIST "default" means the reduced ones
# (int8, bfloat16) this processor runs, as jobs/encode --check says; each one refused is named on
# stderr with its reason.
precision_runs() {
  local conf=$1 list=$2 p runs=""
  [ "$list" = default ] && list="int8 bfloat16"
  for p in $list; do
    { cat "$conf"; echo "model.precision = $p"; } > "${conf%.conf}-$p.conf"
    if [ "$2" != default ]; then
      runs="$runs $p"
    elif "$ROOT/jobs/encode" --config "${conf%.conf}-$p.conf" --check \
        > "${conf%.conf}-$p-check.log" 2>&1; then
      runs="$runs $p"
    else
      echo "$p not run here: $(grep -o 'error: .*' "${conf%.conf}-$p-check.log" | head -1)" >&2
    fi
  done
  echo "$runs"
}

# The ONNX Runtime peer's class path (ONNX Runtime Java and Gson), as ../shared/tools/ort-text
# resolves it on first use; prints the file that holds it, or fails saying what is missing.
ort_classpath() {
  local dir=$1
  local cp="${ORT_TEXT_WORK:-${TMPDIR:-/tmp}/ort-text-peer}/cp-${ORT_VERSION:-1.29.0}.txt"
  if [ ! -s "$cp" ]; then
    echo '[]' > "$dir/empty.json"
    bash "$ROOT/../shared/tools/ort-text/run.sh" "$dir/empty.json" >/dev/null 2>&1 || true
  fi
  if [ ! -s "$cp" ]; then
    echo "error: no ONNX Runtime class path at $cp (../shared/tools/ort-text must be beside" \
      "the project)" >&2
    return 2
  fi
  echo "$cp"
}

# ort_models EXPORTER MODEL DIR NAME: DIR/NAME.onnx, MODEL exported by
# jobs/benchmarks/peers/EXPORTER (float32), and DIR/NAME-int8.onnx, its form after ONNX Runtime's
# dynamic quantization (peers/onnx_quantize.py); made once, kept for later runs.
ort_models() {
  local exporter=$1 model=$2 dir=$3 name=$4
  mkdir -p "$dir"
  if [ ! -f "$dir/exported" ]; then
    /usr/bin/python3 "$ROOT/jobs/benchmarks/peers/$exporter" "$model" "$dir/$name.onnx"
    /usr/bin/python3 "$ROOT/jobs/benchmarks/peers/onnx_quantize.py" "$dir/$name.onnx" \
      "$dir/$name-int8.onnx"
    touch "$dir/exported"
  fi
}

# accuracy REFERENCE OTHER LABEL [TOOL]: one line, how far OTHER's vectors moved from
# REFERENCE's (bench.PrecisionAccuracy, or bench.SparseAccuracy for sparse vectors).
accuracy() {
  (run_main "io.corpus.encoder.bench.${4:-PrecisionAccuracy}" "$1" "$2" "$3") 2>/dev/null \
    | grep '^accuracy'
}
