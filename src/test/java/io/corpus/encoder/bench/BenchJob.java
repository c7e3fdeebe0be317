package io.corpus.encoder.bench;

import io.corpus.encoder.cli.SparkSessions;
import io.corpus.encoder.model.RandomModels;
import io.corpus.encoder.weights.TensorNaming;
import io.corpus.encoder.weights.WeightsWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code jobs/benchmarks/bench-job DIR [--rows N] [--length T] [--layers L] [--width E] [--heads H]
 * [--ffn F] [--files N] [--row-group-mb M] [--page-kb P]}: writes an end-to-end benchmark job to
 * DIR (random BERT-shaped weights, N random sequences of T tokens in Parquet, {@code job.conf}
 * with maps off and
 * {@code job-stats.conf} with head statistics on), to be timed as a whole process with
 * {@code time jobs/encode --config DIR/job.conf}. Defaults: 256 x 128 tokens through 12 BERT-base
 * layers, the shape of jobs/benchmarks/bench_pytorch.py, in as many files as there are cores.
 */
public final class BenchJob {
  private BenchJob() {}

  public static void main(String[] args) throws IOException {
    Job job = Job.parse(args);
    SparkSession spark = SparkSessions.forJob("bench-job");
    try {
      write(spark, job);
    } finally {
      spark.stop();
    }
  }

  /** What {@code jobs/benchmarks/bench-job ARGS} writes, with a session the caller has. */
  public static void write(SparkSession spark, String... args) throws IOException {
    write(spark, Job.parse(args));
  }

  /** The folder and shape of a job, as the command line gives them, defaults elsewhere. */
  private record Job(Path dir, int rows, int length, int layers, int width, int heads, int ffn,
      int files, int rowGroupMb, int pageKb) {
    static Job parse(String[] args) {
      if (args.length == 0 || args[0].startsWith("--")) {
        throw new IllegalArgumentException("usage: jobs/benchmarks/bench-job DIR [--rows N] "
            + "[--length T] [--layers L] [--width E] [--heads H] [--ffn F] [--files N] "
            + "[--row-group-mb M] [--page-kb P]");
      }
      int rows = 256;
      int length = 128;
      int layers = 12;
      int width = 768;
      int heads = 12;
      int ffn = 3072;
      int files = Math.max(1, Runtime.getRuntime().availableProcessors());
      int rowGroupMb = 32;
      int pageKb = 1024;
      for (int i = 1; i + 1 < args.length; i += 2) {
        int value = Integer.parseInt(args[i + 1]);
        switch (args[i]) {
          case "--rows" -> rows = value;
          case "--length" -> length = value;
          case "--layers" -> layers = value;
          case "--width" -> width = value;
          case "--heads" -> heads = value;
          case "--ffn" -> ffn = value;
          case "--files" -> files = value;
          case "--row-group-mb" -> rowGroupMb = value;
          case "--page-kb" -> pageKb = value;
          default -> throw new IllegalArgumentException("unknown argument " + args[i]);
        }
      }
      return new Job(Path.of(args[0]).toAbsolutePath(), rows, length, layers, width, heads, ffn,
          files, rowGroupMb, pageKb);
    }
  }

  private static void write(SparkSession spark, Job job) throws IOException {
    Path dir = job.dir();
    int rows = job.rows();
    int length = job.length();
    int layers = job.layers();
    int width = job.width();
    int heads = job.heads();
    int ffn = job.ffn();
    Files.createDirectories(dir);
    WeightsWriter.write(RandomModels.weights(new Random(1), layers, width, ffn, false, 0),
        TensorNaming.PYTORCH, dir.resolve("weights.safetensors"));
    writeInput(spark, dir.resolve("input.parquet"), rows, length, width, job.files(),
        job.rowGroupMb(), job.pageKb());
    Files.writeString(dir.resolve("job.conf"), String.join("\n",
        "# " + rows + " sequences x " + length + " tokens, " + layers + " layers, E=" + width
            + ", H=" + heads + ", F=" + ffn + "; written by jobs/benchmarks/bench-job",
        "input.path = input.parquet",
        "model { weights = weights.safetensors, heads = " + heads + ", activation = gelu }",
        "output { path = out, mode = overwrite }",
        "execution.resume = false   # timed afresh, never from an interrupted run's pieces", ""));
    Files.writeString(dir.resolve("job-stats.conf"), String.join("\n",
        "# job.conf with per-head attention statistics on (maps still off)",
        "include \"job.conf\"",
        "output { path = out-stats, attention.stats = true }", ""));
    System.out.println("wrote " + dir + "/job.conf and job-stats.conf (statistics on); time "
        + "them with: time jobs/encode --config " + dir + "/job.conf");
  }

  /**
   * N rows of T random tokens in the given number of files, row groups of {@code rowGroupMb}
   * (32 by default, as a corpus written by Spark has; pandas, pyarrow and DuckDB often write one)
   * and pages of about {@code pageKb} (1,024 by default, as pyarrow and DuckDB write them). With
   * 0, Spark's own writer settings: it checks a page's size only every 100 rows, so rows of T x E
   * floats (393 KB for 128 x 768) make pages of about 39 MB.
   */
  private static void writeInput(SparkSession spark, Path path, int rows, int length, int width,
      int files, int rowGroupMb, int pageKb) {
    StructType schema = new StructType()
        .add("id", DataTypes.StringType, false)
        .add("embeddings", DataTypes.createArrayType(DataTypes.createArrayType(
            DataTypes.FloatType, false), false), false);
    MapPartitionsFunction<Long, Row> make = (Iterator<Long> ids) -> {
      List<Row> out = new ArrayList<>();
      while (ids.hasNext()) {
        long id = ids.next();
        Random random = new Random(id);
        List<Object> tokens = new ArrayList<>(length);
        for (int t = 0; t < length; t++) {
          List<Float> v = new ArrayList<>(width);
          for (int e = 0; e < width; e++) {
            v.add((float) random.nextGaussian());
          }
          tokens.add(CollectionConverters.asScala(v).toSeq());  // rows built in a task want Seqs
        }
        out.add(RowFactory.create("row-" + id, CollectionConverters.asScala(tokens).toSeq()));
      }
      return out.iterator();
    };
    DataFrameWriter<Row> writer = spark.range(0, rows, 1, files).as(Encoders.LONG())
        .mapPartitions(make, Encoders.row(schema))
        .write().mode("overwrite")
        .option("parquet.block.size", (long) rowGroupMb << 20);
    if (pageKb > 0) {
      writer = writer.option("parquet.page.size", pageKb << 10)
          .option("parquet.page.size.row.check.min", 1)
          .option("parquet.page.size.row.check.max", 1)
          .option("parquet.page.size.check.estimate", false);
    }
    writer.parquet(path.toString());
  }
}
