package io.corpus.encoder.samples;

import io.corpus.encoder.cli.SparkSessions;
import io.corpus.encoder.model.RandomModels;
import io.corpus.encoder.weights.TensorNaming;
import io.corpus.encoder.weights.WeightsWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code jobs/samples/make-samples [--out DIR] [--rows N] [--seed S]}: writes a small random encoder
 * ({@code model.safetensors}, PyTorch naming, 2 layers, E = 64, H = 4, F = 128) and N embedded
 * sequences ({@code sequences.parquet}: id, embeddings padded to a multiple of 8 tokens, mask,
 * tokens) of 3 to 60 real tokens. Deterministic for a given seed.
 */
public final class MakeSamples {
  static final int LAYERS = 2;
  static final int WIDTH = 64;
  static final int FFN = 128;

  private MakeSamples() {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of("data-samples");
    int rows = 300;
    long seed = 7;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--rows" -> rows = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; usage: jobs/samples/make-samples [--out DIR] [--rows N] [--seed S]");
      }
    }
    Files.createDirectories(out);
    Random random = new Random(seed);
    WeightsWriter.write(RandomModels.weights(random, LAYERS, WIDTH, FFN, false, 0),
        TensorNaming.PYTORCH, out.resolve("model.safetensors"));
    SparkSession spark = SparkSessions.forJob("make-samples");
    try {
      writeSequences(spark, out.resolve("sequences.parquet"), rows, random);
    } finally {
      spark.stop();
    }
    System.out.println("wrote " + out.resolve("model.safetensors") + " and " + rows
        + " sequences to " + out.resolve("sequences.parquet"));
  }

  private static void writeSequences(SparkSession spark, Path path, int count, Random random) {
    StructType schema = new StructType()
        .add("id", DataTypes.StringType, false)
        .add("embeddings", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)))
        .add("mask", DataTypes.createArrayType(DataTypes.IntegerType))
        .add("tokens", DataTypes.createArrayType(DataTypes.StringType));
    List<Row> rows = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      int real = 3 + random.nextInt(58);
      int padded = (real + 7) / 8 * 8;
      List<List<Float>> embeddings = new ArrayList<>();
      List<Integer> mask = new ArrayList<>();
      List<String> tokens = new ArrayList<>();
      for (int t = 0; t < padded; t++) {
        List<Float> vector = new ArrayList<>();
        for (int i = 0; i < WIDTH; i++) {
          vector.add(t < real ? (float) random.nextGaussian() : 0f);
        }
        embeddings.add(vector);
        mask.add(t < real ? 1 : 0);
        tokens.add(t == 0 ? "[CLS]" : t < real ? "w" + random.nextInt(1000) : "[PAD]");
      }
      rows.add(RowFactory.create(String.format("seq-%04d", r), embeddings, mask, tokens));
    }
    spark.createDataFrame(rows, schema).repartition(2).write().mode("overwrite")
        .parquet(path.toString());
  }
}
