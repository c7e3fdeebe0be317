package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.text.StaticReading;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A folder of static embeddings: no transformer, one vector per token id, a text's vector the
 * mean of its tokens' (an empty text's the zero vector). Two forms, told apart by their files:
 * <ul>
 *   <li>sentence-transformers' {@code StaticEmbedding} module, the first one modules.json names
 *       (its folder, such as {@code 0_StaticEmbedding/}, holds {@code model.safetensors} with
 *       {@code embedding.weight} and a {@code tokenizer.json}; there is no config.json): the
 *       ids of the text as given, none dropped or cut, then the folder's Normalize or Dense
 *       modules;
 *   <li>model2vec's folder ({@code config.json} of {@code model_type} model2vec, its
 *       {@code embeddings} tensor beside {@code tokenizer.json}): model2vec's own reading
 *       ({@link StaticReading#model2vec}) and the config's {@code normalize}; from model2vec 0.7
 *       a vocabulary-quantized table, whose row for token i is
 *       {@code embeddings[mapping[i]] · weights[i]}. A model2vec folder also carries a
 *       modules.json for sentence-transformers, which would read it without those rules; the
 *       job reads it as model2vec does.
 * </ul>
 * The table is expanded at load to one float32 row per token id, so that the tasks look rows up
 * as a transformer's embedding layer does.
 *
 * @param name {@code static} or {@code model2vec}, for run summaries and errors
 * @param home the folder of the table and the tokenizer
 * @param table the table's tensor name
 * @param reading how a text becomes ids
 * @param normalize model2vec's config {@code normalize}; empty for sentence-transformers' form,
 *     whose Normalize module says
 */
public record StaticEmbeddings(String name, Path home, String table, StaticReading reading,
    Optional<Boolean> normalize) implements ModelFamily {

  private static final String ST_MODULE = ".StaticEmbedding";
  private static final String ST_TABLE = "embedding.weight";
  private static final String MODEL2VEC_TABLE = "embeddings";

  /** The folder's static embeddings, or empty when it holds a transformer. */
  static Optional<StaticEmbeddings> of(Path folder) {
    Path config = folder.resolve("config.json");
    if (Files.isRegularFile(config) && isModel2vec(ModelFolder.json(config))) {
      return Optional.of(new StaticEmbeddings("model2vec", folder, MODEL2VEC_TABLE,
          StaticReading.model2vec(tokenizerBytes(folder)),
          Optional.of(ModelFolder.json(config).path("normalize").asBoolean(false))));
    }
    Path modules = folder.resolve("modules.json");
    if (!Files.isRegularFile(modules)) {
      return Optional.empty();
    }
    JsonNode first = ModelFolder.json(modules).path(0);
    if (!first.path("type").asText("").endsWith(ST_MODULE)) {
      return Optional.empty();
    }
    Path home = ModelFolder.moduleInside(folder, modules, first.path("path").asText(""));
    tokenizerBytes(home);   // a folder without one is refused here, naming it
    String table = SafetensorsFile.open(home.resolve("model.safetensors")).contains(ST_TABLE)
        ? ST_TABLE : MODEL2VEC_TABLE;   // sentence-transformers reads either name
    return Optional.of(new StaticEmbeddings("static", home, table, StaticReading.AS_TOKENIZED,
        Optional.empty()));
  }

  private static boolean isModel2vec(JsonNode config) {
    return config.path("model_type").asText("").equals("model2vec")
        || config.path("architectures").toString().contains("\"StaticModel\"");
  }

  private static byte[] tokenizerBytes(Path home) {
    Path file = home.resolve("tokenizer.json");
    if (!Files.isRegularFile(file)) {
      throw new WeightsException(home + " holds static embeddings but no tokenizer.json");
    }
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new WeightsException("Cannot read " + file + ": " + e.getMessage());
    }
  }

  /** The table's file. */
  Path weightFile() {
    Path file = home.resolve("model.safetensors");
    if (!Files.isRegularFile(file)) {
      throw new WeightsException(home + " holds static embeddings but no model.safetensors");
    }
    return file;
  }

  /** The tokenizer's file. */
  Path tokenizer() {
    return home.resolve("tokenizer.json");
  }

  /** E, the table's second dimension, from the file's header. */
  int width() {
    SafetensorsFile file = SafetensorsFile.open(weightFile());
    long[] shape = tableShape(file);
    return Math.toIntExact(shape[1]);
  }

  private long[] tableShape(SafetensorsFile file) {
    if (!file.contains(table)) {
      throw new WeightsException(file.path() + " has no tensor " + table + " (static "
          + "embeddings: " + ST_TABLE + " or " + MODEL2VEC_TABLE + ")");
    }
    long[] shape = file.info(table).shape();
    if (shape.length != 2 || shape[0] < 1 || shape[1] < 1) {
      throw new WeightsException(file.path() + ": " + table + " has shape "
          + java.util.Arrays.toString(shape) + ", expected (tokens or clusters, width)");
    }
    return shape;
  }

  /**
   * The heap the load takes at its peak: the stored table widened to float32 beside the table
   * of one row per token id it becomes.
   */
  long heapBytes() {
    SafetensorsFile file = SafetensorsFile.open(weightFile());
    long[] shape = tableShape(file);
    long tokens = file.contains("mapping") ? file.info("mapping").elementCount() : shape[0];
    return 4L * (shape[0] + tokens) * shape[1];
  }

  /**
   * The table, one float32 row per token id: the stored rows, or, with a {@code mapping}, each
   * token's cluster row times its {@code weights} value (in double, then rounded once). Refused
   * in one line when a mapping points outside the table or the weights do not cover the tokens.
   */
  EmbeddingWeights load() {
    SafetensorsFile file = SafetensorsFile.open(weightFile());
    long[] shape = tableShape(file);
    int rows = Math.toIntExact(shape[0]);
    int width = Math.toIntExact(shape[1]);
    float[] stored = storedTable(file);
    boolean mapped = file.contains("mapping");      // model2vec's token → row; else row = token
    boolean weighted = file.contains("weights");    // its per-token scale; else 1
    double[] mapping = mapped ? file.readNumbers("mapping") : new double[0];
    double[] weights = weighted ? file.readNumbers("weights") : new double[0];
    int tokens = mapped ? mapping.length : rows;
    if (weighted && weights.length != tokens) {
      throw new WeightsException(file.path() + ": weights has " + weights.length + " values for "
          + tokens + " tokens");
    }
    if ((long) tokens * width > Integer.MAX_VALUE - 8) {
      throw new WeightsException(file.path() + ": " + tokens + " tokens × " + width + " values "
          + "is more than one table of the job holds (2^31)");
    }
    float[] word = new float[tokens * width];
    for (int t = 0; t < tokens; t++) {
      int row = t;
      if (mapped) {
        row = (int) mapping[t];
        if (row < 0 || row >= rows || row != mapping[t]) {
          throw new WeightsException(file.path() + ": mapping sends token " + t + " to row "
              + mapping[t] + ", outside " + table + "'s 0.." + (rows - 1));
        }
      }
      double scale = weighted ? weights[t] : 1;
      for (int i = 0; i < width; i++) {
        word[t * width + i] = (float) (stored[row * width + i] * scale);
      }
    }
    return EmbeddingWeights.wordsOnly(word, width);
  }

  /** The stored table widened to float: F32, F16, BF16 as weights are; int8 or F64 too. */
  private float[] storedTable(SafetensorsFile file) {
    if (file.info(table).dtype().floating()) {
      return file.read(table);
    }
    double[] values = file.readNumbers(table);
    float[] out = new float[values.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = (float) values[i];
    }
    return out;
  }

  /** A table of token vectors under its own name, no layers, no task prefix, no head. */
  @Override
  public Names names() {
    return new Names(name, List.of("model2vec"),
        "model2vec's potion models, sentence-transformers' StaticEmbedding", "", "layers.",
        List.of(table));
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    return Architecture.encoder(Activation.GELU, 1e-12).build();   // no layer reads it
  }

  @Override
  public EmbeddingWeights embeddings(TensorNaming.TensorSource read, ModelFolder model) {
    return load();
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    throw new IllegalStateException("static embeddings have no layer");
  }
}
