package io.corpus.encoder.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real pretrained models in {@code ../shared/models/} (beside the project, as on CI), with the
 * reference outputs their README describes.
 */
public final class SharedModels {
  private SharedModels() {}

  /** sentence-transformers' all-MiniLM-L6-v2: 6 layers, E = 384, 12 heads, mean + Normalize. */
  public static Path miniLm() {
    Path folder = Path.of("..", "shared", "models", "all-MiniLM-L6-v2").toAbsolutePath()
        .normalize();
    if (!Files.isDirectory(folder)) {
      throw new IllegalStateException("The real-model tests need ../shared/models/"
          + "all-MiniLM-L6-v2 beside the project; not found at " + folder);
    }
    return folder;
  }
}
