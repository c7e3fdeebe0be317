package io.corpus.encoder.samples;

import io.corpus.encoder.cli.SparkSessions;
import io.corpus.encoder.weights.SafetensorsFile;
import io.corpus.encoder.weights.SafetensorsWriter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code jobs/samples/make-text-sample [--model DIR] [--wordnet DIR] [--out DIR] [--per-category N]}: the
 * real sample of {@code conf/local.conf}. Writes
 * <ul>
 *   <li>{@code DIR/all-MiniLM-L6-v2/}: the model folder (default ../shared/models/...) with its
 *       weights stored as F16 (half the size), every other file as it is;
 *   <li>{@code DIR/texts.parquet}: id, category, text: the WordNet 3.0 glosses of the N most
 *       frequent nouns (first sense, by tagged-sense count) of each of five categories (animal,
 *       food, artifact, plant, body), as "word: gloss; examples".
 * </ul>
 * Deterministic. WordNet comes from Debian's wordnet-base (the script installs it).
 */
public final class MakeTextSample {
  /** WordNet lexicographer files used, by number, with the category names written. */
  private static final Map<String, String> CATEGORIES = new LinkedHashMap<>();

  static {
    CATEGORIES.put("05", "animal");
    CATEGORIES.put("13", "food");
    CATEGORIES.put("06", "artifact");
    CATEGORIES.put("20", "plant");
    CATEGORIES.put("08", "body");
  }

  private MakeTextSample() {}

  public static void main(String[] args) throws IOException {
    Path model = Path.of("..", "shared", "models", "all-MiniLM-L6-v2");
    Path wordnet = Path.of("/usr/share/wordnet");
    Path out = Path.of("data-samples");
    int perCategory = 80;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--model" -> model = Path.of(args[++i]);
        case "--wordnet" -> wordnet = Path.of(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--per-category" -> perCategory = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Path folder = out.resolve(model.getFileName());
    copyAsHalf(model, folder);
    List<Row> rows = glosses(wordnet, perCategory);
    SparkSession spark = SparkSessions.forJob("make-text-sample");
    try {
      StructType schema = new StructType().add("id", DataTypes.StringType, false)
          .add("category", DataTypes.StringType, false).add("text", DataTypes.StringType, false);
      spark.createDataFrame(rows, schema).coalesce(1).write().mode("overwrite")
          .parquet(out.resolve("texts.parquet").toString());
    } finally {
      spark.stop();
    }
    System.out.printf("wrote %s (F16) and %d texts to %s%n", folder, rows.size(),
        out.resolve("texts.parquet"));
  }

  /** The folder's files, its safetensors weights as F16. */
  private static void copyAsHalf(Path source, Path target) throws IOException {
    try (Stream<Path> files = Files.walk(source)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path relative = source.relativize(file);
        if (relative.startsWith("expected")) {
          continue;                                  // the reference outputs stay in shared/
        }
        Path to = target.resolve(relative.toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(to);
        } else if (file.getFileName().toString().endsWith(".safetensors")) {
          SafetensorsFile weights = SafetensorsFile.open(file);
          SafetensorsWriter half = new SafetensorsWriter();
          for (String name : weights.names()) {
            half.putHalf(name, weights.read(name), weights.info(name).shape());
          }
          half.write(to);
        } else {
          Files.copy(file, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /** Rows (id, category, text) of the most frequent nouns of each category, by category. */
  private static List<Row> glosses(Path wordnet, int perCategory) throws IOException {
    record Sense(String lemma, long offset, int tagged, int order) {}
    Map<String, List<Sense>> byFile = new LinkedHashMap<>();
    List<String> index = Files.readAllLines(wordnet.resolve("index.noun"),
        StandardCharsets.UTF_8);
    try (RandomAccessFile data = new RandomAccessFile(wordnet.resolve("data.noun").toFile(),
        "r")) {
      for (int n = 0; n < index.size(); n++) {
        String line = index.get(n);
        if (line.startsWith(" ")) {
          continue;                                  // the license header
        }
        String[] f = line.split(" ");
        if (!f[0].matches("[a-z]+")) {
          continue;
        }
        int pointers = Integer.parseInt(f[3]);
        int tagged = Integer.parseInt(f[5 + pointers]);
        long offset = Long.parseLong(f[6 + pointers]);
        String lexFile = synset(data, offset).split(" ")[1];
        if (CATEGORIES.containsKey(lexFile) && tagged > 0) {
          byFile.computeIfAbsent(lexFile, k -> new ArrayList<>())
              .add(new Sense(f[0], offset, tagged, n));
        }
      }
      List<Row> rows = new ArrayList<>();
      Set<Long> seen = new HashSet<>();
      for (Map.Entry<String, String> category : CATEGORIES.entrySet()) {
        List<Sense> senses = byFile.getOrDefault(category.getKey(), List.of());
        senses.sort(Comparator.comparingInt((Sense s) -> -s.tagged()).thenComparing(Sense::order));
        int taken = 0;
        for (Sense s : senses) {
          if (taken == perCategory) {
            break;
          }
          if (seen.add(s.offset())) {
            String line = synset(data, s.offset());
            String gloss = line.substring(line.indexOf(" | ") + 3).strip();
            rows.add(RowFactory.create(s.lemma(), category.getValue(), s.lemma() + ": " + gloss));
            taken++;
          }
        }
      }
      return rows;
    }
  }

  /** The data file's line at a synset offset (byte offset into the file). */
  private static String synset(RandomAccessFile data, long offset) throws IOException {
    data.seek(offset);
    return new String(data.readLine().getBytes(StandardCharsets.ISO_8859_1),
        StandardCharsets.UTF_8);
  }
}
