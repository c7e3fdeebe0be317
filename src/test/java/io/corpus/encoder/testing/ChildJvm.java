package io.corpus.encoder.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A main class of the test classpath run in a JVM of its own: its exit code and output. */
public final class ChildJvm {
  /** The exit code, standard output and standard error of a finished run. */
  public record Result(int exitCode, String out, String err) {
    public String[] lines() {
      return out.strip().split("\n");
    }
  }

  private ChildJvm() {}

  public static Result run(Class<?> main, Map<String, String> env, List<String> jvmOptions,
      String... args) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    Process p = builder.start();
    // Standard error is read on a thread of its own, so a chatty child never blocks on a full pipe.
    StringBuilder err = new StringBuilder();
    Thread errReader = new Thread(() -> {
      try {
        err.append(new String(p.getErrorStream().readAllBytes()));
      } catch (java.io.IOException e) {
        err.append(e);
      }
    });
    errReader.start();
    String out = new String(p.getInputStream().readAllBytes());
    int code = p.waitFor();
    errReader.join();
    return new Result(code, out, err.toString());
  }
}
