package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.AttentionHeads;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A decoder's config.json without {@code head_dim} or {@code num_key_value_heads} means what
 * transformers' configuration class gives for the missing key, not hidden_size / heads.
 */
class DecoderConfigDefaultsTest {
  private static final Path FILE = Path.of("config.json");
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode config(String modelType, int heads) {
    ObjectNode c = JSON.createObjectNode();
    c.put("model_type", modelType).put("hidden_size", 64).put("num_attention_heads", heads)
        .put("num_hidden_layers", 2).put("sliding_window", 512);
    return c;
  }

  private static AttentionHeads.Shaped heads(ObjectNode config) {
    return (AttentionHeads.Shaped) ModelFamily.of(config, FILE).architecture(config, FILE)
        .attention();
  }

  @Test
  void qwen3HeadsAre128WideAndKvHeadsDefaultTo32WhenTheKeysAreAbsent() {
    AttentionHeads.Shaped h = heads(config("qwen3", 32));
    assertEquals(128, h.headWidth());
    assertEquals(32, h.kvHeads());
    ObjectNode nullKv = config("qwen3", 8);
    nullKv.putNull("num_key_value_heads");
    assertEquals(8, heads(nullKv).kvHeads(), "null means as many as the query heads");
    WeightsException e = assertThrows(WeightsException.class, () -> heads(config("qwen3", 16)));
    assertTrue(e.getMessage().contains("num_key_value_heads = 32 (the default when the key is "
        + "absent) does not divide num_attention_heads = 16"), e.getMessage());
  }

  @Test
  void gemma3HeadsAre256WideWithFourKvHeadsWhenTheKeysAreAbsent() {
    AttentionHeads.Shaped h = heads(config("gemma3_text", 8));
    assertEquals(256, h.headWidth());
    assertEquals(4, h.kvHeads());
    ObjectNode given = config("gemma3_text", 8);
    given.put("head_dim", 32).put("num_key_value_heads", 2);
    assertEquals(32, heads(given).headWidth());
    assertEquals(2, heads(given).kvHeads());
  }

  @Test
  void mistralHasEightKvHeadsOfWidthEOverHAndMistralConfigsWindowWhenTheKeysAreAbsent() {
    ObjectNode absent = config("mistral", 16);
    absent.remove("sliding_window");
    Architecture a = ModelFamily.of(absent, FILE).architecture(absent, FILE);
    assertEquals(8, heads(absent).kvHeads());
    assertEquals(4, heads(absent).headWidth(), "hidden_size / num_attention_heads");
    assertEquals(0.5, heads(absent).scoreScale(), "1/√D");
    assertEquals(Window.within(4095), a.layers().get(0).window(), "4,096 keys: the query and 4,095 before it");
    assertTrue(a.causal());
    ObjectNode none = config("mistral", 16);
    none.putNull("sliding_window").putNull("head_dim");
    a = ModelFamily.of(none, FILE).architecture(none, FILE);
    assertEquals(Window.GLOBAL, a.layers().get(1).window(), "null: every earlier key");
    assertEquals(4, heads(none).headWidth());
    ObjectNode uneven = config("mistral", 24);
    WeightsException e = assertThrows(WeightsException.class, () -> heads(uneven));
    assertTrue(e.getMessage().contains("num_attention_heads = 24 does not divide hidden_size = "
        + "64 and no head_dim is given"), e.getMessage());
    uneven.put("head_dim", 8);
    assertEquals(8, heads(uneven).headWidth(), "head_dim, when given, need not be E / H");
  }

  @Test
  void qwen2HasThirtyTwoKvHeadsWhenAbsentAndIsCausalUnlessConfigSaysOtherwise() {
    Architecture a = ModelFamily.of(config("qwen2", 32), FILE)
        .architecture(config("qwen2", 32), FILE);
    assertEquals(32, heads(config("qwen2", 32)).kvHeads());
    assertEquals(2, heads(config("qwen2", 32)).headWidth());
    assertTrue(a.causal());
    assertTrue(a.projectionBias());
    ObjectNode bidirectional = config("qwen2", 32);
    bidirectional.put("is_causal", false);
    assertTrue(!ModelFamily.of(bidirectional, FILE).architecture(bidirectional, FILE).causal());
  }
}
