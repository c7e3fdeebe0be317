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
    Path config = dir.resolve("job-" + System.nanoTime() + ".conf");
    Files.writeString(config, String.join("\n", lines) + "\nexecution.progress = false\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeJob.CommandLine(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
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
