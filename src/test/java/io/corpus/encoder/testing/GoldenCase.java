package io.corpus.encoder.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.Window;
import io.corpus.encoder.weights.TensorNaming;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One golden case computed by PyTorch (see {@code ../shared/fixtures/README.md}), copied into
 * {@code src/test/resources/golden/NAME}: settings, weights, inputs and expected outputs.
 */
public record GoldenCase(
    String name,
    Path dir,
    ModelSettings settings,
    TensorNaming naming,
    boolean masked,
    int layers,
    List<InputRow> inputs,
    List<ExpectedRow> expected) {

  /** One input sequence: embeddings (T, E) and mask (T) or null. */
  public record InputRow(String id, float[][] embeddings, int[] mask) {
    public boolean[] valid() {
      if (mask == null) {
        return null;
      }
      boolean[] v = new boolean[mask.length];
      for (int i = 0; i < mask.length; i++) {
        v[i] = mask[i] == 1;
      }
      return v;
    }
  }

  /** PyTorch's outputs: embeddings (T, E), pooled mean (E), attention [L][H][T][T]. */
  public record ExpectedRow(String id, double[][] embeddings, double[] pooledMean,
      double[][][][] attention) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  public Path weights() {
    return dir.resolve("weights.safetensors");
  }

  public Path inputParquet() {
    return dir.resolve("input.parquet");
  }

  public Path inputJson() {
    return dir.resolve("input.json");
  }

  public int heads() {
    return settings.heads();
  }

  @Override
  public String toString() {
    return name;
  }

  /** Every case under {@code golden/}, in name order. */
  public static List<GoldenCase> all() {
    try {
      Path root = Path.of(GoldenCase.class.getResource("/golden").toURI());
      try (Stream<Path> dirs = Files.list(root)) {
        return dirs.filter(Files::isDirectory).sorted().map(GoldenCase::load).toList();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  public static GoldenCase named(String name) {
    return all().stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
  }

  static GoldenCase load(Path dir) {
    try {
      JsonNode c = JSON.readTree(dir.resolve("case.json").toFile());
      ModelSettings settings = new ModelSettings(
          c.get("heads").asInt(),
          Architecture.encoder(Activation.fromConfigName(c.get("activation").asText()),
                  c.get("layer_norm_eps").asDouble())
              .normFirst(c.get("norm_first").asBoolean())
              .finalNorm(c.get("final_norm").asBoolean())
              .causal(c.get("causal").asBoolean()).build(),
          Window.ofSetting(c.get("window").asInt()),
          PositionalEncoding.fromConfigName(c.get("positional").asText()));
      List<InputRow> inputs = new ArrayList<>();
      for (JsonNode r : JSON.readTree(dir.resolve("input.json").toFile())) {
        inputs.add(new InputRow(r.get("id").asText(), floats2(r.get("embeddings")),
            r.has("mask") ? ints(r.get("mask")) : null));
      }
      List<ExpectedRow> expected = new ArrayList<>();
      for (JsonNode r : JSON.readTree(dir.resolve("expected.json").toFile())) {
        JsonNode att = r.get("attention");
        double[][][][] maps = new double[att.size()][][][];
        for (int l = 0; l < att.size(); l++) {
          maps[l] = new double[att.get(l).size()][][];
          for (int h = 0; h < att.get(l).size(); h++) {
            maps[l][h] = doubles2(att.get(l).get(h));
          }
        }
        expected.add(new ExpectedRow(r.get("id").asText(), doubles2(r.get("embeddings")),
            doubles(r.get("pooled_mean")), maps));
      }
      return new GoldenCase(dir.getFileName().toString(), dir, settings,
          TensorNaming.fromConfigName(c.get("naming").asText()), c.get("masked").asBoolean(),
          c.get("layers").asInt(), inputs, expected);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JSON array of integers. */
  public static int[] ints(JsonNode n) {
    int[] out = new int[n.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = n.get(i).asInt();
    }
    return out;
  }

  /** A JSON array of numbers. */
  public static double[] doubles(JsonNode n) {
    double[] out = new double[n.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = n.get(i).asDouble();
    }
    return out;
  }

  private static double[][] doubles2(JsonNode n) {
    double[][] out = new double[n.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = doubles(n.get(i));
    }
    return out;
  }

  private static float[][] floats2(JsonNode n) {
    float[][] out = new float[n.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = new float[n.get(i).size()];
      for (int j = 0; j < out[i].length; j++) {
        out[i][j] = (float) n.get(i).get(j).asDouble();
      }
    }
    return out;
  }
}
