package io.corpus.encoder.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a folder's {@code tokenizer_config.json} changes in its {@code tokenizer.json}, as
 * transformers 4.x loads the pair. Llama's and Gemma's tokenizer classes (and gte-Qwen2's own
 * {@code tokenization_qwen} classes, which copy them) rebuild the post-processor from
 * {@code add_bos_token} and {@code add_eos_token}, whatever tokenizer.json says: one text becomes
 * {@code [bos] A [eos]}, a pair {@code [bos] A [eos] [bos] B [eos]} with type 1 from B's
 * {@code bos}, each marker only where its flag is true (bos by default for Llama and Gemma, eos
 * not). e5-mistral's tokenizer.json adds only {@code <s>} while its tokenizer_config.json says
 * {@code add_eos_token: true}: its published vectors end every text in {@code </s>}, so this job
 * does too. Other tokenizer classes ignore the flags, and so does this.
 */
public final class TokenizerConfig {
  private static final ObjectMapper JSON = TokenizerJson.MAPPER;
  private static final Set<String> REBUILDING_CLASSES = Set.of("LlamaTokenizer",
      "LlamaTokenizerFast", "CodeLlamaTokenizer", "CodeLlamaTokenizerFast", "GemmaTokenizer",
      "GemmaTokenizerFast");
  private static final String QWEN_CUSTOM = "tokenization_qwen.";

  private TokenizerConfig() {}

  /**
   * The tokenizer.json to run: {@code tokenizerJson} with its post-processor rebuilt when
   * {@code tokenizerConfig} (the folder's tokenizer_config.json, or null without one) names a
   * class that rebuilds it; else {@code tokenizerJson} unchanged. {@code where} names the files in
   * errors.
   */
  public static byte[] applied(byte[] tokenizerJson, JsonNode tokenizerConfig, String where) {
    Optional<Flags> flags = flags(tokenizerConfig);
    if (flags.isEmpty()) {
      return tokenizerJson;
    }
    try {
      ObjectNode root = (ObjectNode) JSON.readTree(tokenizerJson);
      List<Marker> before = new ArrayList<>();
      List<Marker> after = new ArrayList<>();
      if (flags.get().bos()) {
        before.add(marker(root, tokenizerConfig, "bos_token", where));
      }
      if (flags.get().eos()) {
        after.add(marker(root, tokenizerConfig, "eos_token", where));
      }
      root.set("post_processor", template(before, after));
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + where, e);
    }
  }

  /**
   * {@code tokenizerJson} whose template puts the tokens of {@code prefix}'s pieces before every
   * text and of {@code suffix}'s after it, and those of {@code middle}'s between a pair's two
   * texts (each piece and text tokenized alone, without special tokens of their own), as a
   * reranker's card adds them around each pair: a text longer than the limit loses its own end,
   * never these.
   */
  public static byte[] wrapped(byte[] tokenizerJson, List<String> prefix, List<String> middle,
      List<String> suffix) {
    try (TextTokenizer plain = TextTokenizer.fromJson(tokenizerJson, Integer.MAX_VALUE / 2)) {
      ObjectNode root = (ObjectNode) JSON.readTree(tokenizerJson);
      root.set("post_processor", template(markers(plain, "PREFIX", prefix),
          markers(plain, "MIDDLE", middle), markers(plain, "SUFFIX", suffix)));
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the tokenizer", e);
    }
  }

  private static List<Marker> markers(TextTokenizer plain, String name, List<String> pieces) {
    List<Marker> markers = new ArrayList<>();
    for (int i = 0; i < pieces.size(); i++) {
      TextTokenizer.Tokens tokens = plain.contentTokens(pieces.get(i));
      markers.add(new Marker("[" + name + i + "]", tokens.ids(), tokens.tokens()));
    }
    return markers;
  }

  /** Whether a text starts with the bos token and ends with the eos token. */
  private record Flags(boolean bos, boolean eos) {}

  /**
   * What the template adds at one place: a special token (its text and id), or a run of
   * ordinary tokens the template names {@code content}.
   */
  private record Marker(String content, int[] ids, String[] tokens) {
    Marker(String content, int id) {
      this(content, new int[] {id}, new String[] {content});
    }
  }

  private static Optional<Flags> flags(JsonNode config) {
    if (config == null) {
      return Optional.empty();
    }
    String tokenizerClass = config.path("tokenizer_class").asText("");
    boolean qwenCustom = false;
    for (JsonNode name : config.path("auto_map").path("AutoTokenizer")) {
      qwenCustom |= name.asText("").startsWith(QWEN_CUSTOM);
    }
    if (qwenCustom) {
      return Optional.of(new Flags(config.path("add_bos_token").asBoolean(false),
          config.path("add_eos_token").asBoolean(false)));
    }
    if (REBUILDING_CLASSES.contains(tokenizerClass)) {
      return Optional.of(new Flags(config.path("add_bos_token").asBoolean(true),
          config.path("add_eos_token").asBoolean(false)));
    }
    return Optional.empty();
  }

  /**
   * The token tokenizer_config.json names under {@code key} (a string, or an added-token object
   * with its {@code content}), with its id from tokenizer.json's added tokens or vocabulary.
   */
  private static Marker marker(JsonNode root, JsonNode config, String key, String where) {
    JsonNode named = config.path(key);
    String content = named.isTextual() ? named.asText() : named.path("content").asText("");
    if (content.isEmpty()) {
      throw new IllegalArgumentException(where + ": add_" + key + " is true but " + key
          + " is " + (named.isMissingNode() ? "missing" : named.toString()));
    }
    for (JsonNode added : root.path("added_tokens")) {
      if (added.path("content").asText("").equals(content)) {
        return new Marker(content, added.path("id").asInt());
      }
    }
    JsonNode id = root.path("model").path("vocab").path(content);
    if (id.canConvertToInt()) {
      return new Marker(content, id.asInt());
    }
    throw new IllegalArgumentException(where + ": " + key + " '" + content + "' is not a token "
        + "of tokenizer.json");
  }

  /** TemplateProcessing: before A after, and for a pair the same again around B of type 1. */
  private static ObjectNode template(List<Marker> before, List<Marker> after) {
    ObjectNode template = JSON.createObjectNode().put("type", "TemplateProcessing");
    sequence(template.putArray("single"), "A", 0, before, after);
    ArrayNode pair = template.putArray("pair");
    sequence(pair, "A", 0, before, after);
    sequence(pair, "B", 1, before, after);
    return withSpecials(template, before, after);
  }

  /** A pair's template: before, A, between, B, after, all of type 0. */
  private static ObjectNode template(List<Marker> before, List<Marker> between,
      List<Marker> after) {
    ObjectNode template = JSON.createObjectNode().put("type", "TemplateProcessing");
    sequence(template.putArray("single"), "A", 0, before, after);
    ArrayNode pair = template.putArray("pair");
    sequence(pair, "A", 0, before, between);
    sequence(pair, "B", 0, List.of(), after);
    return withSpecials(template, before, between, after);
  }

  @SafeVarargs
  private static ObjectNode withSpecials(ObjectNode template, List<Marker>... groups) {
    ObjectNode specials = template.putObject("special_tokens");
    for (List<Marker> markers : groups) {
      for (Marker m : markers) {
        ObjectNode token = specials.putObject(m.content()).put("id", m.content());
        ArrayNode ids = token.putArray("ids");
        for (int id : m.ids()) {
          ids.add(id);
        }
        ArrayNode tokens = token.putArray("tokens");
        for (String t : m.tokens()) {
          tokens.add(t);
        }
      }
    }
    return template;
  }

  private static void sequence(ArrayNode pieces, String id, int typeId, List<Marker> before,
      List<Marker> after) {
    before.forEach(m -> pieces.addObject().putObject("SpecialToken").put("id", m.content())
        .put("type_id", typeId));
    pieces.addObject().putObject("Sequence").put("id", id).put("type_id", typeId);
    after.forEach(m -> pieces.addObject().putObject("SpecialToken").put("id", m.content())
        .put("type_id", typeId));
  }
}
