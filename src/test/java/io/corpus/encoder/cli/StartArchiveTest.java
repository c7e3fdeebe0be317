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
 * made from: Java refuses an archive whose jars changed without saying so, and the job then
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

  /** archive_current's exit status with the files modified at these seconds (-1: absent). */
  private int archiveCurrent(long jar, long janino, long archive) throws Exception {
    Path jarFile = file("corpus-encoder.jar", jar);
    Path janinoFile = file("corpus-encoder-janino.jar", janino);
    Path archiveFile = file("corpus-encoder.jsa", archive);
    String script = "source jobs/lib.sh && JAR='" + jarFile + "' JANINO_JAR='" + janinoFile
        + "' CDS_ARCHIVE='" + archiveFile + "' && archive_current";
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
