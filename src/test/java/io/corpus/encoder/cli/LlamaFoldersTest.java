package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import io.corpus.encoder.testing.SharedModels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Llama folders (src/test/resources/llama-cases, made by jobs/samples/make_llama_cases.py:
 * random checkpoints saved as NVIDIA's llama-nemotron-embed-1b-v2 and as LlamaForCausalLM are,
 * with llama3 rope scaling and a tokenizer of Llama 3's form; reference ids from Hugging Face's
 * Rust tokenizer, outputs from a float64 port of modeling_llama.py), through the job and the
 * Transformer.
 */
class LlamaFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("llama-cases", tmp);
  }

  /**
   * NVIDIA's bidirectional Llama (llama_bidirec, LlamaBidirectionalModel: every token sees every
   * other, though config.json has no bidirectional flag), its texts encoded as documents with
   * the folder's "passage: " prompt (no "document" prompt there), mean-pooled.
   */
  @Test
  void bidirectionalNemotronFolderAsDocumentsEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("nemotron-bidirectional", 48, "llama");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** LlamaForCausalLM under model., one KV head, head_dim twice E / H: its last token, asked. */
  @Test
  void causalLanguageModelFolderEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("llama-causal-lm", 48, "llama", "",
        "last");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /**
   * The reference tokens show what the cases exercise (the job's ids are compared to them in
   * the tests above): digits in threes, and a special token written in the text matched whole.
   */
  @Test
  void referenceTokensSplitDigitsInThreesAndMatchSpecialTokensInTheText() throws Exception {
    for (String name : List.of("nemotron-bidirectional", "llama-causal-lm")) {
      for (JsonNode t : cases().json(name, "texts.json")) {
        if (t.get("id").asText().equals("digits")) {
          String tokens = t.get("tokens").toString();
          assertTrue(tokens.contains("\"123\",\"456\",\"7\"") && tokens.contains("\"<|eot_id|>\""),
              tokens);
        }
      }
    }
  }

  /**
   * --check says how the bidirectional folder attends, its rotary scaling and the document
   * prompt it takes.
   */
  @Test
  void checkSaysBidirectionalAndThePassagePrompt() throws Exception {
    Path config = tmp.resolve("check.conf");
    Files.writeString(config, "input { path = \""
        + SharedModels.miniLm().resolve("expected/texts.parquet")
        + "\", text-column = text }\nmodel.path = \""
        + cases().folder("nemotron-bidirectional") + "\"\noutput.path = \""
        + tmp.resolve("never") + "\"\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(0, new EncodeJob.CommandLine(new PrintStream(out),
        new PrintStream(new ByteArrayOutputStream())).run(new String[] {"--config",
            config.toString(), "--check"}));
    String said = out.toString(StandardCharsets.UTF_8);
    assertTrue(said.contains("attention: 4 heads of 8 values on 2 KV heads; RMS norms\n"), said);
    assertTrue(said.contains("prompt: 'passage: ' (passage)\n"), said);
    assertTrue(said.contains("pooling mean, normalized"), said);
  }

  /** What Llama can be and this job does not run is refused, in one line each. */
  @Test
  void variantsTheJobDoesNotRunAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("llama-causal-lm").resolve("config.json"));
    cases().assertRefusedInOneLine(Map.of(
        config.replace("\"rope_type\": \"llama3\"", "\"rope_type\": \"yarn\""),
        "is not supported (null, default or llama3)",
        config.replace("\"low_freq_factor\": 1.0", "\"low_freq_factor\": 4.0"),
        "low_freq_factor < high_freq_factor",
        config.replace("\"mlp_bias\": false", "\"mlp_bias\": true"),
        "mlp_bias = true is not supported",
        config.replace("\"num_key_value_heads\": 1", "\"num_key_value_heads\": 3"),
        "num_key_value_heads = 3 does not divide num_attention_heads = 4"));
  }
}
