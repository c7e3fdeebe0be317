package io.corpus.encoder.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** What a running job has kept so far for a resumed run, seen from outside. */
public final class StagingPieces {
  private StagingPieces() {}

  /**
   * Files of the pieces committed in the staging folders of the runs writing {@code output}
   * ({@code .NAME.staging-RUN/embeddings/part-*.parquet} beside it).
   */
  public static long committed(Path output) throws IOException {
    return committed(output, "embeddings");
  }

  /** As {@link #committed(Path)}, in the staged table {@code table}. */
  public static long committed(Path output, String table) throws IOException {
    long count = 0;
    String prefix = "." + output.getFileName() + ".staging-";
    try (Stream<Path> siblings = Files.list(output.getParent())) {
      for (Path staging : siblings.filter(p -> p.getFileName().toString().startsWith(prefix))
          .toList()) {
        File[] parts = staging.resolve(table).toFile().listFiles(
            (d, name) -> name.startsWith("part-") && name.endsWith(".parquet"));
        count += parts == null ? 0 : parts.length;
      }
    }
    return count;
  }
}
