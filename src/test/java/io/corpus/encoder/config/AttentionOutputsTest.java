package io.corpus.encoder.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.model.TopK;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AttentionOutputsTest {
  private static AttentionOutputs sampled(double sample) {
    return new AttentionOutputs(true, List.of(), List.of(), sample, new java.util.TreeSet<>(),
        AttentionOutputs.MapFormat.FULL, 8, false, false, false, AttentionOutputs.Measure.WEIGHTS,
        List.of(), false, 1.0);
  }

  private static Set<String> kept(AttentionOutputs o, List<String> ids) {
    return ids.stream().filter(o::keepsSequence).collect(Collectors.toSet());
  }

  @Test
  void sampleKeepsAboutItsFractionStablyAndLargerSamplesKeepSupersets() {
    List<String> ids = IntStream.range(0, 10_000).mapToObj(i -> "doc-" + i).toList();
    Set<String> tenth = kept(sampled(0.1), ids);
    Set<String> half = kept(sampled(0.5), ids);
    assertEquals(1000, tenth.size(), 100);
    assertEquals(5000, half.size(), 200);
    assertTrue(half.containsAll(tenth));
    assertEquals(tenth, kept(sampled(0.1), ids), "the same ids on a rerun");
    // The hash is part of the output's contract (documented): pinned here.
    assertEquals(0.051949374726907, AttentionOutputs.unitHash("seq-0011"), 1e-12);
  }

  @Test
  void idsKeepExactlyThoseSequences() {
    AttentionOutputs o = new AttentionOutputs(true, List.of(), List.of(), 1.0,
        new java.util.TreeSet<>(List.of("a", "b")), AttentionOutputs.MapFormat.FULL, 8, false,
        false, false, AttentionOutputs.Measure.WEIGHTS, List.of(), false, 1.0);
    assertEquals(Set.of("a", "b"), kept(o, List.of("a", "b", "c", "ab")));
  }

  @Test
  void topKIsLargestFirstWithTiesToTheLowerKey() {
    float[] row = {0.1f, 0.3f, 0.05f, 0.3f, 0.25f};
    int[] keys = new int[3];
    float[] weights = new float[3];
    assertEquals(3, TopK.of(row, 0, 5, 3, keys, weights));
    assertEquals(List.of(1, 3, 4), List.of(keys[0], keys[1], keys[2]));
    assertEquals(0.25f, weights[2]);
    assertEquals(2, TopK.of(row, 3, 2, 3, keys, weights), "fewer keys than k");
    assertEquals(0, keys[0]);
    assertEquals(1, keys[1]);
  }
}
