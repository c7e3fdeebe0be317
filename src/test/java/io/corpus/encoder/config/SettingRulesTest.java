package io.corpus.encoder.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.config.SettingRules.Naming;
import io.corpus.encoder.config.SettingRules.Texts;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.text.LateChunking.SpanRule;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A rule between settings, written once, refuses the same thing for the job and for the
 * Transformer, each time in its reader's names.
 */
class SettingRulesTest {
  @Test
  void lateChunkingOfPairsIsRefusedInEitherReadersNames() {
    assertEquals(Optional.of("input.late-chunking encodes single texts (input.text-column) whole "
        + "and pools their chunks; it does not apply to text pairs"),
        SettingRules.chunking("truncate", SpanRule.TOKENS, Texts.PAIRS, 128, 0, Naming.KEYS));
    assertEquals(Optional.of("lateChunking encodes single texts (textCol) whole and pools their "
        + "chunks; it does not apply to token ids or token vectors"),
        SettingRules.chunking("truncate", SpanRule.SENTENCES, Texts.NONE, 128, 0,
            Naming.PARAMS));
    assertEquals(Optional.of("onTooLong = chunk cuts single texts (textCol) into windows; it "
        + "does not apply to text pairs"),
        SettingRules.chunking("chunk", SpanRule.NONE, Texts.PAIRS, 128, 0, Naming.PARAMS));
  }

  @Test
  void anOverlapIsBoundedWhereTheLimitIsKnownAndNeedsAChunking() {
    assertEquals(Optional.of("input.chunk-overlap = 127 must be below 127 with "
        + "input.late-chunking: each window of input.max-tokens = 128 repeats that many "
        + "positions of the one before and must bring new ones"),
        SettingRules.chunking("truncate", SpanRule.TOKENS, Texts.SINGLE, 128, 127, Naming.KEYS));
    assertEquals(Optional.empty(),
        SettingRules.chunking("truncate", SpanRule.TOKENS, Texts.SINGLE, 128, 126, Naming.KEYS));
    assertEquals(Optional.empty(), SettingRules.chunking("truncate", SpanRule.TOKENS,
        Texts.SINGLE, 0, 127, Naming.PARAMS), "the limit not known yet");
    assertEquals(Optional.of("chunkOverlap goes with onTooLong = chunk or lateChunking"),
        SettingRules.chunking("truncate", SpanRule.NONE, Texts.SINGLE, 128, 16, Naming.PARAMS));
    assertEquals(Optional.of("input.late-chunking encodes every text whole, a long one in "
        + "windows of input.max-tokens: input.on-too-long = reject does not apply"),
        SettingRules.chunking("reject", SpanRule.TOKENS, Texts.SINGLE, 128, 0, Naming.KEYS));
    assertEquals(Optional.empty(),
        SettingRules.chunking("chunk", SpanRule.NONE, Texts.SINGLE, 128, 16, Naming.KEYS));
  }

  @Test
  void quantizingNeedsAPooledVectorAndOnlyInt8AndUint8TakeRanges() {
    assertEquals(Optional.of("quantize = int8 quantizes the pooled vector, and pooling = none "
        + "writes none"),
        SettingRules.quantization(Quantization.INT8, Pooling.NONE, false, Naming.PARAMS));
    assertEquals(Optional.of("output.quantize-ranges gives int8 and uint8 their ranges; "
        + "output.quantize = binary takes none"),
        SettingRules.quantization(Quantization.BINARY, Pooling.MEAN, true, Naming.KEYS));
    assertEquals(Optional.empty(),
        SettingRules.quantization(Quantization.UINT8, Pooling.MEAN, true, Naming.KEYS));
  }
}
