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
    Process p = start(builder(main, jvmOptions, args), env);
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

  /**
   * The command that runs {@code main} on this JVM's classpath with {@code jvmOptions}, for a
   * caller that starts it itself (to kill it, or send its output elsewhere).
   */
  public static ProcessBuilder builder(Class<?> main, List<String> jvmOptions, String... args) {
    return builder(ProcessHandle.current().info().command().orElse("java"), main, jvmOptions,
        args);
  }

  /** As {@link #builder(Class, List, String...)}, run by another {@code java} (a newer JDK's). */
  public static ProcessBuilder builder(String java, Class<?> main, List<String> jvmOptions,
      String... args) {
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command);
  }

  private static Process start(ProcessBuilder builder, Map<String, String> env)
      throws java.io.IOException {
    builder.environment().putAll(env);
    return builder.start();
  }
}
