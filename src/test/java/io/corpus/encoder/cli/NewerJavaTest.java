package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.corpus.encoder.kernel.Elementwise;
import io.corpus.encoder.kernel.OneDnn;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.testing.ChildJvm;
import io.corpus.encoder.testing.RealModelReference;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Slow;
import io.corpus.encoder.testing.Tolerances;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job on the newest Java found beside the one running the tests, as users start it on Java
 * 21 or 25: the build targets Java 17, and two things of Java 17 are gone later. Java 20 took
 * the Vector API's ByteBuffer loads and stores away (int8 and bfloat16 jobs died with
 * NoSuchMethodError), Java 23 Subject.getSubject (Hadoop's client 3.4.2 died before reading
 * anything). A JDK is looked for in {@code $ENCODER_TEST_JAVA} (a JDK folder), else in
 * {@code /usr/lib/jvm}; without one of release 20 or later the test is skipped, saying so.
 */
@Slow
class NewerJavaTest {
  private static final Path JVMS = Path.of("/usr/lib/jvm");
  private static final Pattern FEATURE = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

  @TempDir
  Path tmp;

  @Test
  void realMiniLmInInt8AndBfloat16OnTheNewestJavaHere() throws Exception {
    Optional<Jdk> newer = newestJdk();
    assumeTrue(newer.isPresent(), "no JDK of release 20 or later in $ENCODER_TEST_JAVA or "
        + JVMS);
    Jdk jdk = newer.get();
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    for (Precision precision : List.of(Precision.INT8, Precision.BFLOAT16)) {
      boolean emulated = precision.refusal().isPresent();
      if (emulated && !OneDnn.isa().bfloat16Kernels()) {
        System.out.println(precision + " on Java " + jdk.feature() + ": not run, oneDNN has "
            + "no bfloat16 kernels on " + OneDnn.describe());
        continue;
      }
      String name = precision.toString().toLowerCase(java.util.Locale.ROOT);
      Path output = tmp.resolve(name);
      Path config = JobRunner.config(tmp, name, "input { path = \"" + reference.folder()
          .resolve("expected/texts.parquet") + "\", text-column = text }",
          "model { path = \"" + reference.folder() + "\", precision = " + name + " }",
          "output { path = \"" + output + "\", token-embeddings = false }");
      Path log = tmp.resolve(name + ".log");
      int code = run(jdk, config, log, emulated);
      assertEquals(0, code, "the job on Java " + jdk.feature() + " in " + name + ": "
          + Files.readString(log));
      double worst = reference.worstSentenceCosineGap(spark.read()
          .parquet(output.resolve("embeddings").toString()).collectAsList(), "pooled");
      System.out.printf("all-MiniLM-L6-v2 in %s on Java %d: worst 1 - cosine to the "
          + "reference %.2e%n", name, jdk.feature(), worst);
      assertTrue(worst <= (precision == Precision.INT8 ? Tolerances.int8MiniLm()
          : PrecisionFoldersTest.BFLOAT16_COSINE), "worst 1 - cosine " + worst);
      // else the vector passes, which Java 20 broke, were not run
      if (Elementwise.INSTANCE.describe().startsWith("Vector")) {
        assertTrue(Files.readString(output.resolve("run-summary.json"))
            .contains("VectorElementwise"), "the job on Java " + jdk.feature()
            + " ran the vector kernels");
      }
    }
  }

  /** The job run by {@code jdk}'s java as jobs/encode starts it; its exit code. */
  private static int run(Jdk jdk, Path config, Path log, boolean emulatedBfloat16)
      throws Exception {
    List<String> options = new ArrayList<>(List.of(
        "@" + Path.of("jobs/jvm.options").toAbsolutePath(), "-Xmx2g"));
    if (jdk.feature() >= 23) {   // as jobs/lib.sh adds it there
      options.add("--sun-misc-unsafe-memory-access=allow");
    }
    if (emulatedBfloat16) {
      options.add("-D" + Precision.EMULATED_BFLOAT16 + "=true");
    }
    Process job = ChildJvm.builder(jdk.home().resolve("bin/java").toString(), EncodeJob.class,
        options, "--config", config.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return job.waitFor();
  }

  /** A JDK folder and its feature release. */
  record Jdk(Path home, int feature) {}

  /** The JDK of the highest release of 20 or later, $ENCODER_TEST_JAVA first. */
  static Optional<Jdk> newestJdk() throws IOException {
    String asked = System.getenv("ENCODER_TEST_JAVA");
    if (asked != null && !asked.isBlank()) {
      Optional<Jdk> jdk = jdk(Path.of(asked));
      assertTrue(jdk.isPresent(), "ENCODER_TEST_JAVA=" + asked + " is no JDK of release 20 or "
          + "later (its release file names the release, its bin/java runs it)");
      return jdk;
    }
    if (!Files.isDirectory(JVMS)) {
      return Optional.empty();
    }
    try (Stream<Path> homes = Files.list(JVMS)) {
      return homes.map(NewerJavaTest::jdkOrEmpty).flatMap(Optional::stream)
          .max(Comparator.comparingInt(Jdk::feature));
    }
  }

  private static Optional<Jdk> jdkOrEmpty(Path home) {
    try {
      return jdk(home);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Optional<Jdk> jdk(Path home) throws IOException {
    Path release = home.resolve("release");
    if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
      return Optional.empty();
    }
    Matcher m = FEATURE.matcher(Files.readString(release));
    if (!m.find() || Integer.parseInt(m.group(1)) < 20) {
      return Optional.empty();
    }
    return Optional.of(new Jdk(home.toRealPath(), Integer.parseInt(m.group(1))));
  }
}
