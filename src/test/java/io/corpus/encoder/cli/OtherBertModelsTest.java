package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.RealModelReference;
import io.corpus.encoder.testing.FolderCopies;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * BERT-family folders the project has never seen, on texts it has never seen
 * (src/test/resources/bert-cases, made by jobs/samples/make_bert_cases.py): other depths, widths and
 * heads, gelu_new and relu, another eps, CLS and mean pooling, with and without Normalize, 512
 * positions and a 128-token max_seq_length, texts cut at both; a bert.-prefixed checkpoint with a
 * task head (F16), a sharded one (F32) and a whole one with its pooler (BF16). Through jobs/encode
 * from a text column, against transformers.js's ids and a float64 PyTorch BERT.
 */
class OtherBertModelsTest {
  @TempDir
  Path tmp;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"cls-prefixed-512", "mean-sharded-tanh", "whole-relu-deep"})
  void textThroughTheJobMatchesTheIndependentReference(String name) throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path folder = modelFolder(name);
    RealModelReference reference = RealModelReference.fromJson(folder,
        folder.resolve("expected.json"));
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType);
    List<Row> texts = new ArrayList<>();
    for (String[] t : reference.texts()) {
      texts.add(RowFactory.create(t[0], t[1]));
    }
    Path input = tmp.resolve("texts.parquet");
    spark.createDataFrame(texts, schema).coalesce(1).write().parquet(input.toString());
    Path output = tmp.resolve("out");
    Path config = tmp.resolve("job.conf");
    Files.writeString(config, String.join("\n",
        "input { path = \"" + input + "\", text-column = text }",
        "model.path = \"" + folder + "\"",
        "output.path = \"" + output + "\"",
        "execution { progress = false, batch-tokens = 512 }"));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
    reference.assertMatches(spark.read().parquet(output.resolve("embeddings").toString())
        .collectAsList(), "input_ids", "embeddings", "pooled");
    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertEquals(reference.rows().size(), summary.rowsWritten());
    int maxTokens = ((Number) summary.model().get("max_tokens")).intValue();
    long cut = reference.rows().values().stream().filter(e -> e.ids().length == maxTokens)
        .count();
    assertEquals(cut, summary.rowsTruncated(), "texts cut at max_tokens");
  }

  /** The case's folder with all-MiniLM-L6-v2's tokenizer.json beside its files. */
  private Path modelFolder(String name) throws IOException {
    Path source = Path.of("src", "test", "resources", "bert-cases", name);
    Path folder = FolderCopies.copy(source, tmp.resolve(name));
    Files.createSymbolicLink(folder.resolve("tokenizer.json"),
        SharedModels.miniLm().resolve("tokenizer.json"));
    return folder;
  }
}
