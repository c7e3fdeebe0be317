package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jobs/lib.sh's start-up archive is used, and kept, only while it is newer than both jars it was
 * made from and the Java runtime on the PATH is the one that recorded it: Java refuses an archive
 * whose jars changed, or that another JVM build recorded, without saying so, and the job then
 * starts seconds slower.
 */
class StartArchiveTest {
  @TempDir Path dir;

  @Test
  void archiveNewerThanBothJarsIsCurrent() throws Exception {
    assertEquals(0, archiveCurrent(100, 100, 200));
  }

  @Test
  void janinoJarRewrittenAfterTheArchiveMakesItStale() throws Exception {
    // what any `mvn package` does, jobs/test's included: the shaded Janino jar is written anew
    assertEquals(1, archiveCurrent(100, 300, 200));
  }

  @Test
  void projectJarRebuiltAfterTheArchiveMakesItStale() throws Exception {
    assertEquals(1, archiveCurrent(300, 100, 200));
  }

  @Test
  void noArchiveIsNotCurrent() throws Exception {
    assertEquals(1, archiveCurrent(100, 100, -1));
  }

  @Test
  void archiveRecordedByAnotherJavaIsStale() throws Exception {
    assertEquals(1, archiveCurrent(100, 100, 200,
        "/usr/lib/jvm/another JAVA_RUNTIME_VERSION=\"25.0.3+9-LTS\""));
  }

  @Test
  void archiveWithoutItsJavaIsStale() throws Exception {
    assertEquals(1, archiveCurrent(100, 100, 200, null));
  }

  /**
   * archive_current's exit status with the files modified at these seconds (-1: absent), the
   * archive recorded by the Java on the PATH.
   */
  private int archiveCurrent(long jar, long janino, long archive) throws Exception {
    return archiveCurrent(jar, janino, archive, "");
  }

  /**
   * As above, the archive recorded by {@code java} (its identity as jobs/lib.sh writes it; ""
   * this one's, null none).
   */
  private int archiveCurrent(long jar, long janino, long archive, String java)
      throws Exception {
    Path jarFile = file("corpus-encoder.jar", jar);
    Path janinoFile = file("corpus-encoder-janino.jar", janino);
    Path archiveFile = file("corpus-encoder.jsa", archive);
    Path javaFile = dir.resolve("corpus-encoder.jsa.java");
    String recorded = java == null ? "true"
        : java.isEmpty() ? "java_identity > '" + javaFile + "'"
        : "echo '" + java + "' > '" + javaFile + "'";
    String script = "source jobs/lib.sh && JAR='" + jarFile + "' JANINO_JAR='" + janinoFile
        + "' CDS_ARCHIVE='" + archiveFile + "' CDS_ARCHIVE_JAVA='" + javaFile + "' && "
        + recorded + " && archive_current";
    Process process = new ProcessBuilder("bash", "-c", script)
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return process.waitFor();
  }

  private Path file(String name, long seconds) throws IOException {
    Path path = dir.resolve(name);
    if (seconds >= 0) {
      Files.writeString(path, name);
      Files.setLastModifiedTime(path, FileTime.from(Instant.ofEpochSecond(1_700_000_000L + seconds)));
    }
    return path;
  }
}
