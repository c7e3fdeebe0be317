package io.corpus.encoder.kernel;

/**
 * Whether this JVM has the Vector API ({@code --add-modules jdk.incubator.vector}, set in {@code
 * jobs/jvm.options}), and the kernels written on it, loaded by name so that a JVM without it
 * never links them.
 */
final class VectorApi {
  private VectorApi() {}

  static boolean present() {
    return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
  }

  /**
   * A new {@code className} (a {@code type} on the Vector API, with a no-argument constructor),
   * or null where the JVM lacks the Vector API or cannot load the class.
   */
  static <T> T load(Class<T> type, String className) {
    if (!present()) {
      return null;
    }
    try {
      return type.cast(Class.forName(className).getDeclaredConstructor().newInstance());
    } catch (ReflectiveOperationException | LinkageError e) {
      return null;
    }
  }
}
