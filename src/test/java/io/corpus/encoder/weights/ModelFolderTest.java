package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.Norm;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.RandomModels;
import io.corpus.encoder.testing.SharedModels;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hugging Face model folders: settings from config.json and the sentence-transformers files;
 * whole, bert.-prefixed and sharded checkpoints; the folders that are refused, and why.
 */
class ModelFolderTest {
  private static final int L = 2;
  private static final int E = 8;
  private static final int F = 16;
  private static final int V = 20;
  private static final int P = 10;

  @TempDir
  Path dir;

  @Test
  void sentenceTransformersFolderGivesItsSettings() {
    ModelFolder m = ModelFolder.read(SharedModels.miniLm());
    assertEquals(6, m.shape().layers());
    assertEquals(384, m.shape().width());
    assertEquals(12, m.shape().heads());
    assertEquals(1536, m.shape().ffnWidth());
    assertEquals(Activation.GELU, m.architecture().activation());
    assertEquals(1e-12, m.architecture().norms().eps());
    assertEquals(512, m.shape().maxPositions());
    assertEquals(Optional.of(256), m.maxSeqLength());
    assertEquals(256, m.maxTokens());
    assertEquals(Optional.of(Pooling.MEAN), m.pooling());
    assertTrue(m.normalize());
    assertEquals(List.of(m.folder().resolve("model.safetensors")), m.weightFiles());
    assertTrue(m.tokenizer().isPresent());
  }

  /** A tiny BERT checkpoint: every tensor's name and values. */
  private static Map<String, float[]> tinyBert(Random random) {
    Map<String, float[]> t = new LinkedHashMap<>();
    t.put("embeddings.word_embeddings.weight", values(random, V * E));
    t.put("embeddings.position_embeddings.weight", values(random, P * E));
    t.put("embeddings.token_type_embeddings.weight", values(random, 2 * E));
    t.put("embeddings.LayerNorm.weight", values(random, E));
    t.put("embeddings.LayerNorm.bias", values(random, E));
    for (int i = 0; i < L; i++) {
      String p = "encoder.layer." + i + ".";
      for (String qkv : List.of("query", "key", "value")) {
        t.put(p + "attention.self." + qkv + ".weight", values(random, E * E));
        t.put(p + "attention.self." + qkv + ".bias", values(random, E));
      }
      t.put(p + "attention.output.dense.weight", values(random, E * E));
      t.put(p + "attention.output.dense.bias", values(random, E));
      t.put(p + "attention.output.LayerNorm.weight", values(random, E));
      t.put(p + "attention.output.LayerNorm.bias", values(random, E));
      t.put(p + "intermediate.dense.weight", values(random, F * E));
      t.put(p + "intermediate.dense.bias", values(random, F));
      t.put(p + "output.dense.weight", values(random, E * F));
      t.put(p + "output.dense.bias", values(random, E));
      t.put(p + "output.LayerNorm.weight", values(random, E));
      t.put(p + "output.LayerNorm.bias", values(random, E));
    }
    t.put("pooler.dense.weight", values(random, E * E));
    t.put("pooler.dense.bias", values(random, E));
    return t;
  }

  private static long[] shapeOf(String name) {
    if (name.startsWith("embeddings.word")) {
      return new long[] {V, E};
    } else if (name.startsWith("embeddings.position")) {
      return new long[] {P, E};
    } else if (name.startsWith("embeddings.token_type")) {
      return new long[] {2, E};
    } else if (name.startsWith("classifier.weight")) {
      return new long[] {3, E};
    } else if (name.endsWith("intermediate.dense.weight")) {
      return new long[] {F, E};
    } else if (name.endsWith("intermediate.dense.bias")) {
      return new long[] {F};
    } else if (name.endsWith("output.dense.weight") && !name.contains("attention")) {
      return new long[] {E, F};
    } else if (name.endsWith(".weight") && (name.contains("self.") || name.contains("dense"))) {
      return new long[] {E, E};
    }
    return new long[] {name.startsWith("classifier") ? 3 : E};
  }

  private static float[] values(Random random, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) random.nextGaussian();
    }
    return v;
  }

  private Path folder(String name, int configLayers, String modelType) throws Exception {
    Path folder = Files.createDirectories(dir.resolve(name));
    Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"" + modelType + "\", "
        + "\"hidden_size\": " + E + ", \"num_hidden_layers\": " + configLayers
        + ", \"num_attention_heads\": 2, \"intermediate_size\": " + F + ", \"hidden_act\": "
        + "\"gelu_new\", \"layer_norm_eps\": 1e-12, \"max_position_embeddings\": " + P
        + ", \"type_vocab_size\": 2, \"vocab_size\": " + V + "}");
    return folder;
  }

  private static void write(Map<String, float[]> tensors, String prefix, Path file)
      throws Exception {
    SafetensorsWriter writer = new SafetensorsWriter();
    tensors.forEach((name, data) -> writer.put(prefix + name, data, shapeOf(name)));
    writer.write(file);
  }

  private static void assertLoadsAs(Map<String, float[]> tensors, FolderWeights w) {
    assertArrayEquals(tensors.get("embeddings.word_embeddings.weight"), w.embeddings().word().floats());
    assertArrayEquals(tensors.get("embeddings.LayerNorm.bias"),
        ((Norm.Affine) w.embeddings().norm()).shift());
    assertEquals(L, w.encoder().layerCount());
    assertArrayEquals(tensors.get("encoder.layer.1.output.dense.bias"),
        RandomModels.plain(w.encoder().layers().get(1)).outBias());
  }

  @Test
  void wholeCheckpointLoadsWithThePoolerLeftOut() throws Exception {
    Map<String, float[]> tensors = tinyBert(new Random(1));
    Path folder = folder("whole", L, "bert");
    write(tensors, "", folder.resolve("model.safetensors"));
    ModelFolder m = ModelFolder.read(folder);
    assertEquals(Activation.GELU_TANH, m.architecture().activation());
    assertEquals(P, m.maxTokens());
    assertEquals(Optional.empty(), m.pooling());
    FolderWeights w = WeightsLoader.load(m);
    assertLoadsAs(tensors, w);
    assertEquals(Set.of("pooler.dense.weight", "pooler.dense.bias"), Set.copyOf(w.leftOut()));
  }

  @Test
  void prefixedCheckpointWithATaskHeadLoadsTheSame() throws Exception {
    Map<String, float[]> tensors = tinyBert(new Random(2));
    Map<String, float[]> withHead = new LinkedHashMap<>(tensors);
    Path folder = folder("prefixed", L, "bert");
    SafetensorsWriter writer = new SafetensorsWriter();
    withHead.forEach((name, data) -> writer.put("bert." + name, data, shapeOf(name)));
    writer.put("classifier.weight", values(new Random(3), 3 * E), 3, E);
    writer.put("classifier.bias", values(new Random(4), 3), 3);
    writer.write(folder.resolve("model.safetensors"));
    FolderWeights w = WeightsLoader.load(ModelFolder.read(folder));
    assertLoadsAs(tensors, w);
    assertTrue(w.leftOut().containsAll(List.of("bert.pooler.dense.weight", "classifier.weight",
        "classifier.bias")), w.leftOut().toString());
  }

  /** Older checkpoints carry an I64 buffer of positions 0..P-1: not a weight, left out. */
  @Test
  void integerPositionIdsBufferIsLeftOut() throws Exception {
    Map<String, float[]> tensors = tinyBert(new Random(7));
    Path folder = folder("buffer", L, "bert");
    StringBuilder header = new StringBuilder("{");
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    ByteBuffer ids = ByteBuffer.allocate(8 * P)
        .order(ByteOrder.LITTLE_ENDIAN);
    for (long p = 0; p < P; p++) {
      ids.putLong(p);
    }
    header.append("\"embeddings.position_ids\": {\"dtype\": \"I64\", \"shape\": [1, ")
        .append(P).append("], \"data_offsets\": [0, ").append(8 * P).append("]}");
    data.write(ids.array());
    for (Map.Entry<String, float[]> t : tensors.entrySet()) {
      ByteBuffer b = ByteBuffer.allocate(4 * t.getValue().length)
          .order(ByteOrder.LITTLE_ENDIAN);
      for (float v : t.getValue()) {
        b.putFloat(v);
      }
      long[] shape = shapeOf(t.getKey());
      header.append(", \"").append(t.getKey()).append("\": {\"dtype\": \"F32\", \"shape\": ")
          .append(Arrays.toString(shape)).append(", \"data_offsets\": [")
          .append(data.size()).append(", ").append(data.size() + b.capacity()).append("]}");
      data.write(b.array());
    }
    byte[] json = header.append("}").toString().getBytes(StandardCharsets.UTF_8);
    ByteBuffer length = ByteBuffer.allocate(8)
        .order(ByteOrder.LITTLE_ENDIAN).putLong(json.length);
    try (OutputStream out = Files.newOutputStream(folder.resolve("model.safetensors"))) {
      out.write(length.array());
      out.write(json);
      out.write(data.toByteArray());
    }
    SafetensorsFile file = SafetensorsFile.open(folder.resolve("model.safetensors"));
    WeightsException e = assertThrows(WeightsException.class,
        () -> file.read("embeddings.position_ids"));
    assertEquals("Tensor embeddings.position_ids is I64, not a weight tensor (F32, F16, BF16): "
        + folder.resolve("model.safetensors"), e.getMessage());
    FolderWeights w = WeightsLoader.load(ModelFolder.read(folder));
    assertLoadsAs(tensors, w);
    assertTrue(w.leftOut().contains("embeddings.position_ids"), w.leftOut().toString());
  }

  @Test
  void shardedCheckpointLoadsTheSame() throws Exception {
    Map<String, float[]> tensors = tinyBert(new Random(5));
    Path folder = folder("sharded", L, "bert");
    Map<String, float[]> first = new LinkedHashMap<>();
    Map<String, float[]> second = new LinkedHashMap<>();
    StringBuilder map = new StringBuilder();
    tensors.forEach((name, data) -> {
      boolean one = name.startsWith("embeddings.") || name.startsWith("encoder.layer.0.");
      (one ? first : second).put(name, data);
      String shard = one ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
      map.append(map.length() == 0 ? "" : ", ").append('"').append(name).append("\": \"")
          .append(shard).append('"');
    });
    write(first, "", folder.resolve("model-00001-of-00002.safetensors"));
    write(second, "", folder.resolve("model-00002-of-00002.safetensors"));
    Files.writeString(folder.resolve("model.safetensors.index.json"),
        "{\"metadata\": {}, \"weight_map\": {" + map + "}}");
    ModelFolder m = ModelFolder.read(folder);
    assertEquals(2, m.weightFiles().size());
    assertLoadsAs(tensors, WeightsLoader.load(m));
  }

  /**
   * An index whose shard lies outside the folder (absolute, climbing out, through a linked
   * folder) is refused before the shard is opened; a shard that is itself a link, as in Hugging
   * Face's cache, is read.
   */
  @Test
  void aShardOutsideTheFolderIsRefusedBeforeItIsOpened() throws Exception {
    Path outside = Files.createDirectories(dir.resolve("elsewhere"));
    Path blob = outside.resolve("blob");
    write(tinyBert(new Random(3)), "", blob);
    Path cache = folder("cache-links", L, "bert");
    Files.createSymbolicLink(cache.resolve("model-00001-of-00001.safetensors"), blob);
    Files.writeString(cache.resolve("model.safetensors.index.json"), "{\"weight_map\": "
        + "{\"x\": \"model-00001-of-00001.safetensors\"}}");
    assertEquals(1, ModelFolder.read(cache).weightFiles().size());
    Files.createSymbolicLink(cache.resolve("linked"), outside);
    for (String shard : List.of(blob.toString(), "../elsewhere/blob", "linked/blob",
        "../../../../etc/passwd")) {
      Path folder = folder("escape-" + Math.abs(shard.hashCode()), L, "bert");
      if (shard.startsWith("linked")) {
        Files.createSymbolicLink(folder.resolve("linked"), outside);
      }
      Files.writeString(folder.resolve("model.safetensors.index.json"), "{\"weight_map\": "
          + "{\"x\": \"" + shard + "\"}}");
      WeightsException e = assertThrows(WeightsException.class, () -> ModelFolder.read(folder));
      assertEquals(folder.resolve("model.safetensors.index.json") + " names the shard '" + shard
          + "', which is outside the model folder " + folder + "; only the folder's own files "
          + "are read", e.getMessage());
    }
  }

  /** A weight stored as integers (I32, 4 bytes as F32) is named as such, not as missing. */
  @Test
  void anIntegerWeightIsNamedAsSuch() throws Exception {
    Path folder = folder("int-table", L, "bert");
    Path file = folder.resolve("model.safetensors");
    write(tinyBert(new Random(5)), "", file);
    String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    String entry = "\"embeddings.word_embeddings.weight\":{\"dtype\":\"F32\"";
    assertTrue(bytes.contains(entry));
    Files.write(file, bytes.replace(entry, entry.replace("F32", "I32"))
        .getBytes(StandardCharsets.ISO_8859_1));
    WeightsException e = assertThrows(WeightsException.class,
        () -> WeightsLoader.load(ModelFolder.read(folder)));
    assertEquals("Tensor embeddings.word_embeddings.weight in " + folder + " is I32, not "
        + "floating point: a weight is F32, F16, BF16 or F64", e.getMessage());
  }

  /** A JSON file past the reader's limits (a string of 20 million characters) says so. */
  @Test
  void aJsonFileBeyondTheReadersLimitsSaysSo() throws Exception {
    Path file = dir.resolve("huge-string.json");
    Files.writeString(file, "{\"normalizer\": \"" + "a".repeat(20_000_001) + "\"}");
    WeightsException e = assertThrows(WeightsException.class, () -> ModelFolder.json(file));
    assertTrue(e.getMessage().startsWith("Cannot read " + file + ": beyond what is read (String "
        + "value length (20000001) exceeds the maximum allowed (20000000"), e.getMessage());
  }

  /** A count that is not a whole number, or not a number, is refused naming it. */
  @Test
  void aSizeThatIsNoWholeNumberIsRefused() throws Exception {
    for (String value : List.of("32.5", "\"32\"", "0", "-4")) {
      Path folder = folder("size-" + Math.abs(value.hashCode()), L, "bert");
      Files.writeString(folder.resolve("config.json"), Files.readString(folder.resolve(
          "config.json")).replace("\"hidden_size\": " + E, "\"hidden_size\": " + value));
      write(tinyBert(new Random(4)), "", folder.resolve("model.safetensors"));
      WeightsException e = assertThrows(WeightsException.class, () -> ModelFolder.read(folder));
      assertEquals(folder.resolve("config.json") + ": hidden_size is " + value + ", expected a "
          + "positive integer", e.getMessage());
    }
  }

  @Test
  void configThatContradictsTheWeightsIsRefusedNamingBoth() throws Exception {
    Path folder = folder("contradicts", 3, "bert");
    write(tinyBert(new Random(6)), "", folder.resolve("model.safetensors"));
    WeightsException e = assertThrows(WeightsException.class,
        () -> WeightsLoader.load(ModelFolder.read(folder)));
    assertEquals("config.json says num_hidden_layers = 3 but the weights in " + folder
        + " have 2", e.getMessage());
  }

  @Test
  void pickleOnlyFolderIsRefusedWithHowToConvert() throws Exception {
    Path folder = folder("pickle", L, "bert");
    Files.write(folder.resolve("pytorch_model.bin"), new byte[] {(byte) 0x80, 2});
    WeightsException e = assertThrows(WeightsException.class, () -> ModelFolder.read(folder));
    assertTrue(e.getMessage().startsWith(folder + " holds only pytorch_model.bin, a pickle"),
        e.getMessage());
    assertTrue(e.getMessage().contains("save_pretrained('" + folder
        + "', safe_serialization=True)"), e.getMessage());
  }

  @Test
  void otherArchitecturesAndMissingConfigAreRefused() throws Exception {
    Path funnel = folder("funnel", L, "funnel");
    WeightsException e = assertThrows(WeightsException.class, () -> ModelFolder.read(funnel));
    assertEquals(funnel.resolve("config.json") + ": model_type 'funnel' is not supported; "
        + "this job runs bert (jina-embeddings-v2, by its auto_map; BERT, BGE, E5, MiniLM), "
        + "xlm-roberta, roberta or camembert "
        + "(multilingual-e5, paraphrase-multilingual, bge-m3, camembert), xlm-roberta "
        + "(jina-embeddings-v3, its position_embedding_type rotary), modernbert "
        + "(gte-modernbert, modernbert-embed), mpnet (all-mpnet-base-v2, multi-qa-mpnet), "
        + "nomic_bert (nomic-embed-text-v1, v1.5, v2-moe), distilbert (distilbert-base, "
        + "msmarco-distilbert, distilbert-sst-2), new (gte-base-en-v1.5, gte-large-en-v1.5, "
        + "gte-multilingual-base), qwen2 (gte-Qwen2-1.5B-instruct, gte-Qwen2-7B-instruct), "
        + "qwen3, bidirectional_pplx_qwen3 or jina_embeddings_v5 (Qwen3-Embedding-0.6B, 4B, 8B; "
        + "pplx-embed-v1; jina-embeddings-v5-text-small), "
        + "gemma3_text (embeddinggemma-300m), mistral (e5-mistral-7b-instruct, SFR-Embedding-2_R),"
        + " nvembed (NV-Embed-v2), llama or llama_bidirec (llama-nemotron-embed-1b-v2, llama-embed-nemotron-8b, Llama 3 "
        + "by its last token), eurobert (EuroBERT-210m, 610m, 2.1B) and deberta-v2 (DeBERTa-v3 "
        + "cross-encoders, mxbai-rerank-v1) folders, and folders of static embeddings "
        + "(model2vec, sentence-transformers' StaticEmbedding)",
        e.getMessage());
    Path empty = Files.createDirectories(dir.resolve("empty"));
    e = assertThrows(WeightsException.class, () -> ModelFolder.read(empty));
    assertEquals(empty.resolve("config.json") + " is missing", e.getMessage());
  }
}
