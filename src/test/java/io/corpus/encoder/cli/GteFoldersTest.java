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
 * GTE folders (model_type new; src/test/resources/gte-cases, made by
 * jobs/samples/make_gte_cases.py: random checkpoints saved as gte-base-en-v1.5's, F32, with its
 * config.json (auto_map, NTK-scaled rotary, no token types) and CLS pooling, and as
 * NewForMaskedLM, BF16, `new.` prefix, gte-multilingual's rotary; reference ids from Hugging
 * Face's Rust tokenizer, outputs from a float64 PyTorch port of new-impl's modeling.py), through
 * the job and the Transformer.
 */
class GteFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("gte-cases", tmp);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gte-embedding", "gte-mlm"})
  void hiddenStatesAndVectorsEqualThePort(String name) throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer(name, 64, "gte");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** What new-impl can do and this job does not is refused, in one line each. */
  @Test
  void variantsTheJobDoesNotRunAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("gte-embedding").resolve("config.json"));
    cases().assertRefusedInOneLine(Map.of(
        config.replace("\"ntk\"", "\"yarn\""), "rope_scaling {\"factor\":2.0,\"type\":\"yarn\"} "
            + "is not supported",
        config.replace("\"layer_norm\"", "\"rms_norm\""),
        "layer_norm_type 'rms_norm' is not supported (layer_norm)",
        config.replace("\"logn_attention_scale\": false", "\"logn_attention_scale\": true"),
        "logn_attention_scale = true is not supported",
        config.replace("\"pack_qkv\": true", "\"pack_qkv\": false"),
        "pack_qkv = false is not supported",
        // a string once became the default eps, silently
        config.replace("\"layer_norm_eps\": 1e-12", "\"layer_norm_eps\": \"1e-12\""),
        "layer_norm_eps is \"1e-12\", expected a positive number",
        config.replace("new-impl--modeling.NewModel", "other--modeling.OtherModel"),
        "auto_map names custom modelling code"));
  }
}
