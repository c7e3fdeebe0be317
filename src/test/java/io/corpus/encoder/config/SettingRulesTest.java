package io.corpus.encoder.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.config.SettingRules.Naming;
import io.corpus.encoder.config.SettingRules.Texts;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.text.LateChunking.SpanRule;
import io.corpus.encoder.weights.Reranker;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A rule between settings, written once, refuses the same thing for the job and for the
 * Transformer, each time in its reader's names and as its reader's error.
 */
class SettingRulesTest {
  /** The rule throws exactly {@code kind} with exactly {@code message}. */
  private static void refused(String message, Class<? extends RuntimeException> kind,
      Executable rule) {
    RuntimeException e = assertThrows(RuntimeException.class, rule);
    assertEquals(kind, e.getClass());
    assertEquals(message, e.getMessage());
  }

  @Test
  void lateChunkingOfPairsIsRefusedInEitherReadersNames() {
    refused("input.late-chunking encodes single texts (input.text-column) whole and pools their "
        + "chunks; it does not apply to text pairs", SettingsException.class,
        () -> SettingRules.chunking("truncate", SpanRule.TOKENS, Texts.PAIRS, 128, 0,
            Naming.KEYS));
    refused("lateChunking encodes single texts (textCol) whole and pools their chunks; it does "
        + "not apply to token ids or token vectors", IllegalArgumentException.class,
        () -> SettingRules.chunking("truncate", SpanRule.SENTENCES, Texts.NONE, 128, 0,
            Naming.PARAMS));
    refused("onTooLong = chunk cuts single texts (textCol) into windows; it does not apply to "
        + "text pairs", IllegalArgumentException.class,
        () -> SettingRules.chunking("chunk", SpanRule.NONE, Texts.PAIRS, 128, 0, Naming.PARAMS));
  }

  @Test
  void anOverlapIsBoundedWhereTheLimitIsKnownAndNeedsAChunking() {
    refused("input.chunk-overlap = 127 must be below 127 with input.late-chunking: each window "
        + "of input.max-tokens = 128 repeats that many positions of the one before and must "
        + "bring new ones", SettingsException.class,
        () -> SettingRules.chunking("truncate", SpanRule.TOKENS, Texts.SINGLE, 128, 127,
            Naming.KEYS));
    assertDoesNotThrow(() -> SettingRules.chunking("truncate", SpanRule.TOKENS, Texts.SINGLE,
        128, 126, Naming.KEYS));
    assertDoesNotThrow(() -> SettingRules.chunking("truncate", SpanRule.TOKENS, Texts.SINGLE, 0,
        127, Naming.PARAMS), "the limit not known yet");
    refused("chunkOverlap goes with onTooLong = chunk or lateChunking",
        IllegalArgumentException.class, () -> SettingRules.chunking("truncate", SpanRule.NONE,
            Texts.SINGLE, 128, 16, Naming.PARAMS));
    refused("input.late-chunking encodes every text whole, a long one in windows of "
        + "input.max-tokens: input.on-too-long = reject does not apply", SettingsException.class,
        () -> SettingRules.chunking("reject", SpanRule.TOKENS, Texts.SINGLE, 128, 0,
            Naming.KEYS));
    assertDoesNotThrow(() -> SettingRules.chunking("chunk", SpanRule.NONE, Texts.SINGLE, 128,
        16, Naming.KEYS));
  }

  @Test
  void quantizingNeedsAPooledVectorAndOnlyInt8AndUint8TakeRanges() {
    refused("quantize = int8 quantizes the pooled vector, and pooling = none writes none",
        IllegalArgumentException.class, () -> SettingRules.quantization(
            values(Naming.PARAMS, Map.of(Settings.QUANTIZE, "int8")), Pooling.NONE));
    refused("output.quantize-ranges gives int8 and uint8 their ranges; output.quantize = binary "
        + "takes none", SettingsException.class, () -> SettingRules.quantization(
            values(Naming.KEYS, Map.of(Settings.QUANTIZE, "binary",
                Settings.QUANTIZE_RANGES, "ranges.json")), Pooling.MEAN));
    assertEquals(Quantization.UINT8, SettingRules.quantization(values(Naming.KEYS,
        Map.of(Settings.QUANTIZE, "uint8", Settings.QUANTIZE_RANGES, "ranges.json")),
        Pooling.MEAN));
    assertEquals(Quantization.NONE, SettingRules.quantization(values(Naming.KEYS, Map.of()),
        Pooling.NONE), "the default quantizes nothing, and needs no pooled vector");
  }

  @Test
  void theRoleAndTheRerankerAreReadAsEitherReaderGivesThem() {
    assertTrue(SettingRules.queries(values(Naming.PARAMS, Map.of(Settings.ROLE, "query"))));
    assertFalse(SettingRules.queries(values(Naming.KEYS, Map.of())), "documents by default");
    assertEquals(Reranker.NONE, SettingRules.reranker(values(Naming.KEYS, Map.of())));
    assertEquals("qwen3", SettingRules.reranker(values(Naming.PARAMS,
        Map.of(Settings.RERANKER, "qwen3"))).configName());
  }

  @Test
  void theModelIsAFolderOrAWeightsFileNotBoth() {
    refused("Set modelPath (a Hugging Face model folder) or weightsPath (a safetensors file of "
        + "encoder layers), not both", IllegalArgumentException.class,
        () -> SettingRules.fromFolder(values(Naming.PARAMS, Map.of(Settings.MODEL_PATH, "m",
            Settings.MODEL_WEIGHTS, "w.safetensors"))));
    refused("model.path (a Hugging Face model folder) or model.weights (a safetensors file of "
        + "encoder layers) must be set", SettingsException.class,
        () -> SettingRules.fromFolder(values(Naming.KEYS, Map.of())));
    assertFalse(SettingRules.fromFolder(values(Naming.KEYS,
        Map.of(Settings.MODEL_WEIGHTS, "w.safetensors"))));
  }

  @Test
  void theInputsColumnsAreCheckedInEitherReadersNames() {
    assertEquals(InputKind.EMBEDDINGS, SettingRules.inputKind(values(Naming.KEYS, Map.of())),
        "token vectors by default");
    assertEquals(InputKind.TEXT, SettingRules.inputKind(values(Naming.PARAMS,
        Map.of(Settings.TEXT_PAIR_COLUMNS, List.of("query", "passage")))));
    refused("Set exactly one of input.embeddings-column (token vectors), input.ids-column (token "
        + "ids) and input.text-column (text); got input.embeddings-column, input.ids-column",
        SettingsException.class, () -> SettingRules.inputKind(values(Naming.KEYS,
            Map.of(Settings.EMBEDDINGS_COLUMN, "x", Settings.IDS_COLUMN, "ids"))));
    refused("Set exactly one of inputCol (token vectors), idsCol (token ids) and textCol (text); "
        + "got idsCol, textPairCols", IllegalArgumentException.class,
        () -> SettingRules.inputKind(values(Naming.PARAMS, Map.of(Settings.IDS_COLUMN, "ids",
            Settings.TEXT_PAIR_COLUMNS, List.of("a", "b")))));
    refused("Set textCol (single texts) or textPairCols (pairs), not both",
        IllegalArgumentException.class, () -> SettingRules.inputKind(values(Naming.PARAMS,
            Map.of(Settings.TEXT_COLUMN, "t", Settings.TEXT_PAIR_COLUMNS, List.of("a", "b")))));
    refused("input.type-ids-column goes with input.ids-column (text gets its type ids from the "
        + "tokenizer)", SettingsException.class, () -> SettingRules.inputKind(values(Naming.KEYS,
            Map.of(Settings.TEXT_COLUMN, "t", Settings.TYPE_IDS_COLUMN, "types"))));
    refused("maskCol does not apply to textCol: text has no padding",
        IllegalArgumentException.class, () -> SettingRules.inputKind(values(Naming.PARAMS,
            Map.of(Settings.TEXT_COLUMN, "t", Settings.MASK_COLUMN, "mask"))));
    refused("idsCol needs modelPath, a Hugging Face model folder: its embedding layer turns "
        + "token ids into the encoder's input", IllegalArgumentException.class,
        () -> SettingRules.inputModel(InputKind.IDS, null, Naming.PARAMS));
    assertDoesNotThrow(() -> SettingRules.inputModel(InputKind.EMBEDDINGS, null, Naming.KEYS));
  }

  @Test
  void limitsAndKeptMapsAreRefusedInEitherReadersNames() {
    refused("maxLength applies to inputCol; for token ids and text set maxTokens",
        IllegalArgumentException.class, () -> SettingRules.limits(InputKind.TEXT,
            values(Naming.PARAMS, Map.of(Settings.MAX_LENGTH, 64))));
    refused("input.max-tokens applies to token ids and text; for input.embeddings-column set "
        + "input.max-length", SettingsException.class, () -> SettingRules.limits(
            InputKind.EMBEDDINGS, values(Naming.KEYS, Map.of(Settings.MAX_TOKENS, 64))));
    refused("chunkTokens goes with lateChunking (tokens or sentences)",
        IllegalArgumentException.class, () -> SettingRules.limits(InputKind.TEXT,
            values(Naming.PARAMS, Map.of(Settings.CHUNK_TOKENS, 256))));
    assertDoesNotThrow(() -> SettingRules.limits(InputKind.TEXT, values(Naming.PARAMS,
        Map.of(Settings.CHUNK_TOKENS, 256, Settings.LATE_CHUNKING, "sentences",
            Settings.MAX_TOKENS, 512))));
    refused("Set attentionIds or attentionSample, not both (ids [a], sample 0.5)",
        IllegalArgumentException.class, () -> SettingRules.keptMaps(values(Naming.PARAMS,
            Map.of(Settings.ATTENTION_IDS, List.of("a"), Settings.ATTENTION_SAMPLE, 0.5))));
    assertDoesNotThrow(() -> SettingRules.keptMaps(values(Naming.KEYS,
        Map.of(Settings.ATTENTION_IDS, List.of("a")))));
  }

  /** Settings as a reader naming them {@code n} holds them: {@code given}, else the default. */
  private static SettingValues values(Naming n, Map<Setting<?>, Object> given) {
    return new SettingValues() {
      @Override
      @SuppressWarnings("unchecked")
      public <T> T value(Setting<T> setting) {
        return (T) given.getOrDefault(setting, setting.defaultValue());
      }

      @Override
      public boolean given(Setting<?> setting) {
        return given.containsKey(setting);
      }

      @Override
      public Naming naming() {
        return n;
      }
    };
  }

  @Test
  void aSparseNormAndImportancesWithoutAPooledVectorAreRefusedInEitherReadersNames() {
    refused("pooling = splade writes a sparse vector, which is not L2-normalized: set "
        + "normalize = false", IllegalArgumentException.class,
        () -> SettingRules.pooledVector(Pooling.SPLADE, true, false, Naming.PARAMS));
    refused("output.pooling = splade writes a sparse vector, which is not L2-normalized: set "
        + "output.normalize = false", SettingsException.class,
        () -> SettingRules.pooledVector(Pooling.SPLADE, true, false, Naming.KEYS));
    refused("output.attention.importance measures each head's effect on the pooled vector, and "
        + "output.pooling = splade writes none", SettingsException.class,
        () -> SettingRules.pooledVector(Pooling.SPLADE, false, true, Naming.KEYS));
    refused("importanceCol measures each head's effect on the pooled vector, and pooling = "
        + "none writes none", IllegalArgumentException.class,
        () -> SettingRules.pooledVector(Pooling.NONE, false, true, Naming.PARAMS));
    assertDoesNotThrow(() -> SettingRules.pooledVector(Pooling.MEAN, true, true, Naming.KEYS));
  }
}
