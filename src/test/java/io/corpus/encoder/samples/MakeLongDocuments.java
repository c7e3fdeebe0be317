package io.corpus.encoder.samples;

import io.corpus.encoder.cli.SparkSessions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.text.TextTokenizer;
import io.corpus.encoder.weights.ModelFolder;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code jobs/samples/make-long-documents --corpus DIR --model FOLDER --tokens T --docs N}: long
 * documents from the real texts of {@code jobs/samples/make-text-corpus} (DIR/texts.json), consecutive
 * texts joined by blank lines until the model folder's tokenizer gives at least T tokens. Writes
 * {@code DIR/long-T.parquet} (id, text; one file, one row group) and {@code DIR/long-T-ids.jsonl}
 * (each document's ids cut to T, for a baseline that starts from ids).
 */
public final class MakeLongDocuments {
  private MakeLongDocuments() {}

  public static void main(String[] args) throws Exception {
    Path corpus = null;
    Path model = null;
    int tokens = 8192;
    int docs = 1;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--corpus" -> corpus = Path.of(args[++i]);
        case "--model" -> model = Path.of(args[++i]);
        case "--tokens" -> tokens = Integer.parseInt(args[++i]);
        case "--docs" -> docs = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: "
            + "jobs/samples/make-long-documents --corpus DIR --model FOLDER --tokens T --docs N");
      }
    }
    if (corpus == null || model == null) {
      throw new IllegalArgumentException("--corpus DIR and --model FOLDER are required");
    }
    ObjectMapper json = new ObjectMapper();
    JsonNode texts = json.readTree(corpus.resolve("texts.json").toFile());
    ModelFolder folder = ModelFolder.read(model);
    List<Row> rows = new ArrayList<>();
    String name = "long-" + tokens;
    try (TextTokenizer uncut = TextTokenizer.open(folder.tokenizer().orElseThrow(),
        Integer.MAX_VALUE / 2);
        TextTokenizer cut = TextTokenizer.open(folder.tokenizer().orElseThrow(), tokens);
        Writer ids = Files.newBufferedWriter(corpus.resolve(name + "-ids.jsonl"))) {
      int next = 0;
      for (int d = 0; d < docs; d++) {
        StringBuilder text = new StringBuilder();
        int counted = 0;                 // the parts' tokens, a little more than the whole's
        while (counted < tokens + tokens / 4 || uncut.encode(text.toString()).ids().length
            < tokens) {
          if (next == texts.size()) {
            throw new IllegalStateException(corpus.resolve("texts.json") + " has too few texts "
                + "for " + docs + " documents of " + tokens + " tokens");
          }
          String part = texts.get(next++).get("text").asText();
          text.append(text.length() == 0 ? "" : "\n\n").append(part);
          counted += uncut.encode(part).ids().length;
        }
        String id = String.format("d%04d", d);
        rows.add(RowFactory.create(id, text.toString()));
        ids.write(json.writeValueAsString(Map.of("id", id, "ids",
            cut.encode(text.toString()).ids())));
        ids.write('\n');
      }
    }
    SparkSession spark = SparkSessions.forJob("make-long-documents");
    try {
      StructType schema = new StructType().add("id", DataTypes.StringType, false)
          .add("text", DataTypes.StringType);
      spark.createDataFrame(rows, schema).coalesce(1).write().mode("overwrite")
          .parquet(corpus.resolve(name + ".parquet").toString());
    } finally {
      spark.stop();
    }
    System.out.printf("wrote %d documents of at least %d tokens to %s%n", docs, tokens,
        corpus.resolve(name + ".parquet"));
  }
}
