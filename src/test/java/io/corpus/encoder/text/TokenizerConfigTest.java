package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The template a tokenizer class rebuilds from tokenizer_config.json's add_bos_token and
 * add_eos_token, run by the Rust tokenizer on a Qwen-form tokenizer.json that adds nothing
 * itself (<|im_start|> id 343 standing in for a bos token, <|endoftext|> id 342).
 */
class TokenizerConfigTest {
  private static final Path TOKENIZER =
      Path.of("src/test/resources/qwen2-cases/gte-qwen2/tokenizer.json");
  private static final int BOS = 343;
  private static final int EOS = 342;

  private static JsonNode config(String json) throws Exception {
    return new ObjectMapper().readTree(json);
  }

  private static TextTokenizer.Tokens encode(byte[] json, String a, String b) {
    try (TextTokenizer t = TextTokenizer.fromJson(json, 64)) {
      return b == null ? t.encode(a) : t.encode(a, b);
    }
  }

  @Test
  void llamaClassesAddBosByDefaultAndEosWhenAsked() throws Exception {
    byte[] plain = Files.readAllBytes(TOKENIZER);
    int[] content = encode(plain, "ab", null).ids();
    byte[] llama = TokenizerConfig.applied(plain, config("{\"tokenizer_class\": "
        + "\"LlamaTokenizer\", \"bos_token\": {\"content\": \"<|im_start|>\"}, \"eos_token\": "
        + "\"<|endoftext|>\", \"add_eos_token\": true}"), "here");
    int[] ids = encode(llama, "ab", null).ids();
    assertEquals(BOS, ids[0]);
    assertArrayEquals(content, Arrays.copyOfRange(ids, 1, ids.length - 1));
    assertEquals(EOS, ids[ids.length - 1]);
    TextTokenizer.Tokens pair = encode(llama, "ab", "cd");
    int n = content.length;
    assertEquals(BOS, pair.ids()[n + 2]);
    assertEquals(EOS, pair.ids()[pair.ids().length - 1]);
    assertEquals(0, pair.typeIds()[n + 1]);
    assertEquals(1, pair.typeIds()[n + 2]);

    byte[] bosOnly = TokenizerConfig.applied(plain, config("{\"tokenizer_class\": "
        + "\"GemmaTokenizerFast\", \"bos_token\": \"<|im_start|>\"}"), "here");
    int[] withBos = encode(bosOnly, "ab", null).ids();
    assertEquals(content.length + 1, withBos.length);
    assertEquals(BOS, withBos[0]);
  }

  @Test
  void qwenCustomClassesAppendEosOnly() throws Exception {
    byte[] plain = Files.readAllBytes(TOKENIZER);
    byte[] qwen = TokenizerConfig.applied(plain, config("{\"auto_map\": {\"AutoTokenizer\": "
        + "[\"tokenization_qwen.Qwen2Tokenizer\", null]}, \"bos_token\": null, \"eos_token\": "
        + "\"<|endoftext|>\", \"add_eos_token\": true}"), "here");
    int[] ids = encode(qwen, "ab", null).ids();
    assertArrayEquals(encode(plain, "ab", null).ids(), Arrays.copyOf(ids, ids.length - 1));
    assertEquals(EOS, ids[ids.length - 1]);
  }

  @Test
  void otherClassesIgnoreTheFlags() throws Exception {
    byte[] plain = Files.readAllBytes(TOKENIZER);
    assertSame(plain, TokenizerConfig.applied(plain, config("{\"tokenizer_class\": "
        + "\"Qwen2Tokenizer\", \"eos_token\": \"<|endoftext|>\", \"add_eos_token\": true}"),
        "here"));
    assertSame(plain, TokenizerConfig.applied(plain, null, "here"));
  }

  @Test
  void aFlagWithoutItsTokenIsRefusedNamingBoth() throws Exception {
    byte[] plain = Files.readAllBytes(TOKENIZER);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TokenizerConfig.applied(plain, config("{\"tokenizer_class\": \"LlamaTokenizer\", "
            + "\"add_bos_token\": false, \"add_eos_token\": true, \"eos_token\": \"</s>\"}"),
            "folder/tokenizer.json"));
    assertTrue(e.getMessage().contains("folder/tokenizer.json: eos_token '</s>' is not a token"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> TokenizerConfig.applied(plain, config("{\"tokenizer_class\": \"LlamaTokenizer\"}"),
            "here"));
    assertTrue(e.getMessage().contains("add_bos_token is true but bos_token is missing"),
        e.getMessage());
  }
}
