package io.corpus.encoder.samples;

import io.corpus.encoder.cli.SparkSessions;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.text.TextTokenizer;
import io.corpus.encoder.weights.ModelFolder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code jobs/samples/make-text-corpus --out DIR [--texts N] [--seed S] [--model DIR]}: real English text
 * with a natural spread of lengths, for benchmarks on real text: the package descriptions of this
 * Debian machine's package lists ({@code apt-cache dumpavail}), the entries of its packages'
 * {@code changelog.Debian.gz} and the paragraphs of their {@code copyright} files (license
 * texts), deduplicated, a third from each, shuffled with the seed. Writes {@code texts.parquet}
 * (id, text, source: description, changelog or license; one file, one row group, as pandas or
 * DuckDB would) and, with the model folder's tokenizer, {@code ids.jsonl} (one {"id", "ids"} a
 * line) for a baseline that starts from token ids, {@code texts.json} ([{"id", "text"}], what
 * the ONNX Runtime peer of ../shared/tools/ort-text reads), and {@code check.jsonl} (the
 * folder's reference texts: ids and sentence vectors) to check that baseline; prints the token
 * counts' spread.
 */
public final class MakeTextCorpus {
  /** The sources, in the order they are drawn: the texts' source column. */
  private static final List<String> SOURCE_NAMES = List.of("description", "changelog", "license");

  private MakeTextCorpus() {}

  public static void main(String[] args) throws Exception {
    Path out = null;
    int count = 10_000;
    long seed = 7;
    Path model = Path.of("..", "shared", "models", "all-MiniLM-L6-v2");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--texts" -> count = Integer.parseInt(args[++i]);
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--model" -> model = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: "
            + "jobs/samples/make-text-corpus --out DIR [--texts N] [--seed S] [--model DIR]");
      }
    }
    if (out == null) {
      throw new IllegalArgumentException("--out DIR is required");
    }
    Random random = new Random(seed);
    Path docs = Path.of("/usr/share/doc");
    // Short (package descriptions), medium (changelog entries) and long (license paragraphs).
    List<List<String>> sources = List.of(distinctShuffled(packageDescriptions(), random),
        distinctShuffled(changelogEntries(docs), random),
        distinctShuffled(copyrightParagraphs(docs), random));
    List<String> chosen = new ArrayList<>();
    Map<String, String> sourceOf = new HashMap<>();
    for (int s = 0; s < sources.size(); s++) {
      int wanted = (count - chosen.size()) / (sources.size() - s);
      for (String text : sources.get(s).subList(0, Math.min(wanted, sources.get(s).size()))) {
        chosen.add(text);
        sourceOf.putIfAbsent(text, SOURCE_NAMES.get(s));
      }
    }
    if (chosen.size() < count) {
      throw new IllegalStateException("only " + chosen.size() + " texts could be drawn evenly "
          + "from this machine, " + count + " asked for (run apt-get update for the package "
          + "lists)");
    }
    Collections.shuffle(chosen, random);
    Files.createDirectories(out);
    ModelFolder folder = ModelFolder.read(model);
    int[] lengths = new int[count];
    ObjectMapper json = new ObjectMapper();
    try (TextTokenizer tokenizer = TextTokenizer.open(folder.tokenizer().orElseThrow(),
        folder.maxTokens());
        Writer ids = Files.newBufferedWriter(out.resolve("ids.jsonl"));
        Writer texts = Files.newBufferedWriter(out.resolve("texts.json"))) {
      texts.write('[');
      for (int i = 0; i < count; i++) {
        int[] tokenIds = tokenizer.encode(chosen.get(i)).ids();
        lengths[i] = tokenIds.length;
        ids.write(json.writeValueAsString(Map.of("id", id(i), "ids", tokenIds)));
        ids.write('\n');
        texts.write((i > 0 ? ",\n" : "") + json.writeValueAsString(Map.of("id", id(i), "text",
            chosen.get(i))));
      }
      texts.write("]\n");
    }
    SparkSession spark = SparkSessions.forJob("make-text-corpus");
    try {
      writeParquet(spark, chosen, sourceOf, out.resolve("texts.parquet"));
      writeCheck(spark, folder.folder().resolve("expected/expected.parquet"),
          out.resolve("check.jsonl"));
    } finally {
      spark.stop();
    }
    Arrays.sort(lengths);
    long tokens = Arrays.stream(lengths).asLongStream().sum();
    System.out.printf("wrote %,d texts to %s: %,d tokens (%s), median %d, p90 %d, max %d%n",
        count, out, tokens, folder.folder().getFileName(), lengths[count / 2],
        lengths[count * 9 / 10], lengths[count - 1]);
  }

  private static List<String> distinctShuffled(List<String> texts, Random random) {
    List<String> distinct = new ArrayList<>(new LinkedHashSet<>(texts));
    Collections.shuffle(distinct, random);
    return distinct;
  }

  private static String id(int i) {
    return String.format("t%05d", i);
  }

  /** Each package's short description and its long one, as one text. */
  private static List<String> packageDescriptions() throws IOException, InterruptedException {
    Process apt = new ProcessBuilder("apt-cache", "dumpavail").redirectErrorStream(false)
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    List<String> texts = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(apt.getInputStream(),
        StandardCharsets.UTF_8))) {
      StringBuilder text = null;
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("Description:")) {
          text = new StringBuilder(line.substring("Description:".length()).trim()).append('.');
        } else if (text != null && line.startsWith(" ")) {
          String part = line.trim();
          if (!part.equals(".")) {
            text.append(' ').append(part);
          }
        } else if (text != null) {
          texts.add(text.toString());
          text = null;
        }
      }
    }
    apt.waitFor();
    return texts;
  }

  /** The bullet entries of every changelog.Debian.gz under {@code docs}. */
  private static List<String> changelogEntries(Path docs) throws IOException {
    List<String> texts = new ArrayList<>();
    for (Path log : packageFiles(docs, "changelog.Debian.gz")) {
      try (InputStream raw = Files.newInputStream(log);
          BufferedReader in = new BufferedReader(new InputStreamReader(
              new GZIPInputStream(raw), StandardCharsets.UTF_8))) {
        StringBuilder entry = null;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          String trimmed = line.trim();
          boolean bullet = trimmed.startsWith("* ") || trimmed.startsWith("- ");
          if (bullet || trimmed.isEmpty() || line.startsWith(" --") || !line.startsWith(" ")) {
            if (entry != null && entry.length() > 0) {
              texts.add(entry.toString());
            }
            entry = bullet ? new StringBuilder(trimmed.substring(2)) : null;
          } else if (entry != null) {
            entry.append(' ').append(trimmed);
          }
        }
      } catch (IOException e) {
        // an unreadable changelog: leave it out
      }
    }
    return texts;
  }

  /** Paragraphs of every copyright file under {@code docs} (license texts), of 8 words or more. */
  private static List<String> copyrightParagraphs(Path docs) throws IOException {
    List<String> texts = new ArrayList<>();
    for (Path copyright : packageFiles(docs, "copyright")) {
      List<String> lines;
      try {
        lines = new ArrayList<>(Files.readAllLines(copyright, StandardCharsets.UTF_8));
      } catch (IOException e) {
        continue;   // not UTF-8 text: leave it out
      }
      lines.add("");
      StringBuilder paragraph = new StringBuilder();
      for (String line : lines) {
        String trimmed = line.trim();
        if (trimmed.isEmpty() || trimmed.equals(".")) {
          if (paragraph.toString().split("\\s+").length >= 8) {
            texts.add(paragraph.toString());
          }
          paragraph.setLength(0);
        } else {
          paragraph.append(paragraph.length() == 0 ? "" : " ").append(trimmed);
        }
      }
    }
    return texts;
  }

  /** {@code docs/<package>/<name>} for every package folder that has that file. */
  private static List<Path> packageFiles(Path docs, String name) throws IOException {
    List<Path> files = new ArrayList<>();
    if (!Files.isDirectory(docs)) {
      return files;
    }
    try (DirectoryStream<Path> packages = Files.newDirectoryStream(docs)) {
      for (Path dir : packages) {
        Path file = dir.resolve(name);
        if (Files.isRegularFile(file)) {
          files.add(file);
        }
      }
    }
    return files;
  }

  /** The reference texts' ids and sentence vectors, when the model folder has them. */
  private static void writeCheck(SparkSession spark, Path expected, Path out) throws IOException {
    if (!Files.exists(expected)) {
      return;
    }
    ObjectMapper json = new ObjectMapper();
    try (Writer check = Files.newBufferedWriter(out)) {
      for (Row row : spark.read().parquet(expected.toString())
          .select("id", "input_ids", "sentence_embedding").collectAsList()) {
        check.write(json.writeValueAsString(Map.of("id", row.getString(0),
            "ids", row.getList(1), "sentence_embedding", row.getList(2))));
        check.write('\n');
      }
    }
  }

  private static void writeParquet(SparkSession spark, List<String> texts,
      Map<String, String> sourceOf, Path path) {
    StructType schema = new StructType().add("id", DataTypes.StringType, false)
        .add("text", DataTypes.StringType).add("source", DataTypes.StringType);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      rows.add(RowFactory.create(id(i), texts.get(i), sourceOf.get(texts.get(i))));
    }
    spark.createDataFrame(rows, schema).coalesce(1).write().mode("overwrite")
        .parquet(path.toString());
  }
}
