package io.corpus.encoder.testing;

/**
 * A system property a test sets, given back as it was (set to its earlier value, or cleared)
 * when closed: {@code try (SystemProperty p = SystemProperty.set("encoder.x", "1")) { ... }},
 * or kept in a field and closed after each test or class. Tests that set one are
 * {@code @Isolated}: the property is the JVM's.
 */
public final class SystemProperty implements AutoCloseable {
  private final String name;
  private final String before;

  private SystemProperty(String name) {
    this.name = name;
    this.before = System.getProperty(name);
  }

  /** Remembers the property's value now, to give it back on {@link #close}. */
  public static SystemProperty remember(String name) {
    return new SystemProperty(name);
  }

  /** Sets the property to {@code value}, remembering what it was. */
  public static SystemProperty set(String name, String value) {
    SystemProperty property = new SystemProperty(name);
    System.setProperty(name, value);
    return property;
  }

  @Override
  public void close() {
    if (before == null) {
      System.clearProperty(name);
    } else {
      System.setProperty(name, before);
    }
  }
}
