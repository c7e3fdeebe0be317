package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * JinaBERT v2 folders (src/test/resources/jina-cases, made by jobs/samples/make_jina_cases.py:
 * random checkpoints saved as jina-embeddings-v2's, a bert config.json with ALiBi and the
 * auto_map of jinaai/jina-bert-implementation: JinaBertModel, F32, 4 heads, GeGLU, and
 * JinaBertForMaskedLM, BF16, `bert.` prefix, 6 heads, ReGLU; reference ids from Hugging Face's
 * Rust tokenizer, outputs from a float64 PyTorch port of its modeling_bert.py), through the job
 * and the Transformer.
 */
class JinaBertFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("jina-cases", tmp);
  }

  @ParameterizedTest
  @ValueSource(strings = {"jina-embedding", "jina-mlm"})
  void hiddenStatesAndVectorsEqualThePort(String name) throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer(name, 64, "jinabert");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /**
   * A bert folder is JinaBERT only by its implementation's name: ALiBi without it, and the code
   * models' qk-post-norm implementation, are refused in one line.
   */
  @Test
  void otherAlibiFoldersAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("jina-embedding").resolve("config.json"));
    cases().assertRefusedInOneLine(Map.of(
        config.replace("jinaai/jina-bert-implementation", "jinaai/jina-bert-v2-qk-post-norm"),
        "auto_map names custom modelling code",
        config.replace("\"geglu\"", "\"glu\""), "feed_forward_type 'glu' is not supported",
        config.replaceAll("\"_name_or_path\": \"[^\"]*\",", "")
            .replaceAll("\"auto_map\": \\{[^}]*\\},", ""),
        "position_embedding_type 'alibi' is not supported (absolute)"));
  }
}
