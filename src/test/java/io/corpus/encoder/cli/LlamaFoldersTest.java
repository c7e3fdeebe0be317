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
    assertEquals(0, new EncodeCommand(new PrintStream(out),
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

  /**
   * An 8B folder (llama-embed-nemotron-8b's shapes: 32 layers of E 4096, 8 KV heads, F 14336,
   * 128,256 ids; BF16, 15 GB, here a sparse file whose header is all that is written): --check
   * gives its parameters and its bytes per precision from the header before it refuses the
   * float32 weights this heap cannot hold.
   */
  @Test
  void checkGivesAnEightBillionFolderFromItsHeadersAlone() throws Exception {
    Path folder = Files.createDirectories(tmp.resolve("nemotron-8b"));
    String config = Files.readString(cases().folder("nemotron-bidirectional")
        .resolve("config.json"))
        .replace("\"hidden_size\": 32", "\"hidden_size\": 4096")
        .replace("\"intermediate_size\": 64", "\"intermediate_size\": 14336")
        .replace("\"num_attention_heads\": 4", "\"num_attention_heads\": 32")
        .replace("\"num_hidden_layers\": 2", "\"num_hidden_layers\": 32")
        .replace("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 8")
        .replaceAll("\"vocab_size\": \\d+", "\"vocab_size\": 128256");
    Files.writeString(folder.resolve("config.json"), config);
    Files.copy(cases().folder("nemotron-bidirectional").resolve("tokenizer.json"),
        folder.resolve("tokenizer.json"));
    java.util.Map<String, long[]> shapes = new java.util.LinkedHashMap<>();
    shapes.put("embed_tokens.weight", new long[] {128256, 4096});
    for (int i = 0; i < 32; i++) {
      String p = "layers." + i + ".";
      shapes.put(p + "self_attn.q_proj.weight", new long[] {4096, 4096});
      shapes.put(p + "self_attn.k_proj.weight", new long[] {1024, 4096});
      shapes.put(p + "self_attn.v_proj.weight", new long[] {1024, 4096});
      shapes.put(p + "self_attn.o_proj.weight", new long[] {4096, 4096});
      shapes.put(p + "mlp.gate_proj.weight", new long[] {14336, 4096});
      shapes.put(p + "mlp.up_proj.weight", new long[] {14336, 4096});
      shapes.put(p + "mlp.down_proj.weight", new long[] {4096, 14336});
      shapes.put(p + "input_layernorm.weight", new long[] {4096});
      shapes.put(p + "post_attention_layernorm.weight", new long[] {4096});
    }
    shapes.put("norm.weight", new long[] {4096});
    StringBuilder header = new StringBuilder("{\"__metadata__\":{\"format\":\"pt\"}");
    long offset = 0;
    for (Map.Entry<String, long[]> t : shapes.entrySet()) {
      long bytes = 2 * java.util.Arrays.stream(t.getValue()).reduce(1, (a, b) -> a * b);
      header.append(",\"").append(t.getKey()).append("\":{\"dtype\":\"BF16\",\"shape\":")
          .append(java.util.Arrays.toString(t.getValue()).replace(" ", ""))
          .append(",\"data_offsets\":[").append(offset).append(',').append(offset + bytes)
          .append("]}");
      offset += bytes;
    }
    byte[] json = header.append('}').toString().getBytes(StandardCharsets.UTF_8);
    try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(
        folder.resolve("model.safetensors").toFile(), "rw")) {
      file.write(java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN)
          .putLong(json.length).array());
      file.write(json);
      file.setLength(8 + json.length + offset);            // sparse: no tensor is written
    }
    Path check = tmp.resolve("check-8b.conf");
    Files.writeString(check, "input { path = \""
        + SharedModels.miniLm().resolve("expected/texts.parquet") + "\", text-column = text }\n"
        + "model.path = \"" + folder + "\"\noutput.path = \"" + tmp.resolve("never") + "\"\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeCommand(new PrintStream(out), new PrintStream(err))
        .run(new String[] {"--config", check.toString(), "--check"});
    String said = out.toString(StandardCharsets.UTF_8);
    assertTrue(said.contains("weights by their headers: 7,504,924,672 parameters: 30.0 GB in "
        + "float32, 16.1 GB in bfloat16, 9.1 GB in int8\n"), said);
    assertEquals(1, code, said);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("the weights take 30.0 GB of heap"),
        err.toString(StandardCharsets.UTF_8));
  }
}
