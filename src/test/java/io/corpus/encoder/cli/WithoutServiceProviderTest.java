package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ServiceLoader;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WithoutServiceProviderTest {
  private static final String SERVICE = SparkSessionExtensionsProvider.class.getName();
  private final ClassLoader app = getClass().getClassLoader();

  @Test
  void sessionExtensionsLackSparkMlsFunctionsAlone() {
    List<String> all = providers(app);
    assertTrue(all.contains(SparkSessions.ML_FUNCTIONS), "spark-mllib lists " + all);
    List<String> expected = new ArrayList<>(all);
    expected.remove(SparkSessions.ML_FUNCTIONS);
    assertEquals(expected, providers(without(app)));
  }

  @Test
  void otherResourcesAndClassesComeFromTheParent() throws IOException, ReflectiveOperationException {
    String other = "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister";
    assertEquals(Collections.list(app.getResources(other)),
        Collections.list(without(app).getResources(other)));
    assertEquals(Class.forName(SparkSessions.ML_FUNCTIONS, false, app),
        Class.forName(SparkSessions.ML_FUNCTIONS, false, without(app)));
  }

  @Test
  void aServiceFileNamingOthersTooIsKept(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("META-INF/services/" + SERVICE);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "# two providers\n" + SparkSessions.ML_FUNCTIONS
        + "\ncom.example.Extensions  # another\n");
    try (URLClassLoader folder = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
      assertEquals(Collections.list(folder.getResources("META-INF/services/" + SERVICE)),
          Collections.list(without(folder).getResources("META-INF/services/" + SERVICE)));
      Files.writeString(file, "# one\n" + SparkSessions.ML_FUNCTIONS + "  \n\n");
      assertEquals(List.of(), Collections.list(
          without(folder).getResources("META-INF/services/" + SERVICE)));
    }
  }

  private static ClassLoader without(ClassLoader parent) {
    return new WithoutServiceProvider(parent, SERVICE, SparkSessions.ML_FUNCTIONS);
  }

  /** The providers' class names, in the loader's order, none of them instantiated. */
  private static List<String> providers(ClassLoader loader) {
    return ServiceLoader.load(SparkSessionExtensionsProvider.class, loader).stream()
        .map(p -> p.type().getName()).toList();
  }
}
