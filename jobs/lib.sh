# Shared by the jobs/ scripts (sourced, not run): first-use set-up, then a main class on the
# project's classpath with the JVM options Spark needs.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Native BLAS: netlib finds the system OpenBLAS (libblas.so.3). On a Debian/Ubuntu machine where we
# are root, install it; elsewhere say what the job will fall back to.
ensure_openblas() {
  if ldconfig -p 2>/dev/null | grep -q 'libblas\.so\.3'; then
    return 0
  fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing OpenBLAS (Debian package libopenblas0-pthread) for native BLAS" >&2
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenblas0-pthread >/dev/null 2>&1; then
      apt-get update -qq >/dev/null 2>&1
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenblas0-pthread >/dev/null 2>&1 \
        || echo "setup: could not install OpenBLAS; matrix products use pure Java (10-25x slower)" >&2
    fi
  else
    echo "warning: no system OpenBLAS (libblas.so.3) found; matrix products use pure Java," \
      "10-25x slower. Install libopenblas0-pthread (Debian/Ubuntu) or openblas." >&2
  fi
}

# Compiles the project and records its classpath when there is no build yet or a source file,
# the pom or a resource is newer than the last one.
ensure_built() {
  local stamp="$ROOT/target/classpath.txt"
  if [ ! -f "$stamp" ] || [ -n "$(find "$ROOT/src/main" "$ROOT/pom.xml" -newer "$stamp" -print -quit)" ]; then
    echo "setup: building with Maven (the first build downloads Spark, a few minutes)" >&2
    (cd "$ROOT" && mvn -q -B -ntp -DskipTests compile dependency:build-classpath \
      -Dmdep.outputFile=target/classpath.txt) >&2
  fi
}

# run_main CLASS ARGS...: runs CLASS in this process's place. One BLAS thread per Spark task
# (OPENBLAS_NUM_THREADS=1) unless set; ENCODER_HEAP sets the heap (default 4g); JAVA_OPTS is added.
run_main() {
  local main_class=$1
  shift
  export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
  export SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}
  # shellcheck disable=SC2086
  exec java @"$ROOT/jobs/jvm.options" -Xmx"${ENCODER_HEAP:-4g}" -XX:+UseParallelGC ${JAVA_OPTS:-} \
    -cp "$ROOT/target/classes:$(cat "$ROOT/target/classpath.txt")" "$main_class" "$@"
}
