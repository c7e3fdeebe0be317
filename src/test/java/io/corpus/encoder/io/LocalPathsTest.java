package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the checks before Spark take as the local disk, and what they leave to Spark. */
class LocalPathsTest {
  @TempDir Path dir;

  @Test
  void aPathWithoutSchemeIsOnTheDefaultFileSystem() throws Exception {
    Configuration hdfs = new Configuration();
    hdfs.set("fs.defaultFS", "hdfs://namenode:8020");
    Configuration local = new Configuration();
    org.apache.hadoop.fs.Path docs = new org.apache.hadoop.fs.Path("/data/docs");
    assertTrue(LocalPaths.isRemote(docs, hdfs));
    assertFalse(LocalPaths.isRemote(docs, local));
    assertTrue(LocalPaths.isRemote(new org.apache.hadoop.fs.Path("s3a://b/docs"), local));
    assertFalse(LocalPaths.isRemote(new org.apache.hadoop.fs.Path("file:/data/docs"), hdfs));

    // On a cluster, /data/docs is on HDFS: not refused here for missing from the local disk.
    String missing = dir.resolve("docs.parquet").toString();
    assertTrue(ParquetInput.schemaBeforeSpark(missing, hdfs).isEmpty());
    assertEquals("input.path " + missing + " does not exist", assertThrows(
        IllegalArgumentException.class, () -> ParquetInput.schemaBeforeSpark(missing, local))
        .getMessage());
    Path existing = Files.createDirectories(dir.resolve("out"));
    Files.writeString(existing.resolve("notes.txt"), "mine");
    OutputFolder.checkBeforeStart(existing.toString(), OutputFolder.Replace.NOTHING, hdfs);
    assertThrows(IllegalArgumentException.class, () -> OutputFolder.checkBeforeStart(
        existing.toString(), OutputFolder.Replace.NOTHING, local));
  }
}
