package io.corpus.encoder.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A job run as {@code jobs/encode --config FILE} runs it, from config lines, in this JVM. */
final class JobRunner {
  /** The exit code and what the job wrote to standard error, stripped. */
  record Result(int code, String error) {}

  private JobRunner() {}

  /** Writes {@code lines} (progress off) as a config file in {@code dir} and runs the job. */
  static Result run(Path dir, String... lines) throws IOException {
    return runConfig(config(dir, "job-" + System.nanoTime(), lines));
  }

  /** {@code lines} and progress off, as {@code dir/NAME.conf}. */
  static Path config(Path dir, String name, String... lines) throws IOException {
    Path config = dir.resolve(name + ".conf");
    Files.writeString(config, String.join("\n", lines) + "\nexecution.progress = false\n");
    return config;
  }

  /** {@code jobs/encode --config CONFIG} and any further arguments ({@code --check}). */
  static Result runConfig(Path config, String... more) {
    String[] args = new String[2 + more.length];
    args[0] = "--config";
    args[1] = config.toString();
    System.arraycopy(more, 0, args, 2, more.length);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(args);
    return new Result(code, err.toString(StandardCharsets.UTF_8).strip());
  }

  /** A JSON array of integers, as an int[]. */
  static int[] ints(JsonNode array) {
    int[] out = new int[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asInt();
    }
    return out;
  }

  /** A Spark array column's numbers, as an int[]. */
  static int[] ints(List<Object> list) {
    return list.stream().mapToInt(o -> ((Number) o).intValue()).toArray();
  }
}
