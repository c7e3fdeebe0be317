package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recipes the README links (rerank, long documents, entities, hybrid search; in
 * src/site/markdown/recipes.md; attention analyses in attention.md), run as written there:
 * its SQL blocks in DuckDB (through its JDBC driver) and its HOCON blocks as job configs, in a
 * working folder. Only what the README leaves to the reader is filled in: the model folders'
 * paths (the test's cross-encoder, NER and SPLADE folders, the sample's all-MiniLM-L6-v2), the
 * second SPLADE job's input and output (the queries), and the folder relative paths resolve in
 * (DuckDB resolves them against the process's folder, so they are made absolute).
 */
class ReadmeRecipesTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir"));
  private static final Path MINILM = ROOT.resolve("data-samples/all-MiniLM-L6-v2");
  private static final String[] QUERIES = {"a loyal pet that barks", "a sweet baked dessert",
      "the joint between the foot and the leg"};

  @TempDir
  Path work;

  @Test
  void rerankAndLongDocumentRecipesRunAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## Rerank pairs");
    assertEquals(List.of("sql", "hocon", "sql", "hocon", "sql"),
        blocks.stream().map(b -> b.substring(0, b.indexOf('\n'))).toList(),
        "the recipes' blocks, in order");
    SparkSession spark = SparkTestSession.get();
    // what the recipes start from: the passages and the queries, through an embeddings job
    embed(ROOT.resolve("data-samples/texts.parquet"), "docs");
    List<Row> queries = new ArrayList<>();
    for (int i = 0; i < QUERIES.length; i++) {
      queries.add(RowFactory.create("q" + i, QUERIES[i]));
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType);
    spark.createDataFrame(queries, schema).coalesce(1).write()
        .parquet(work.resolve("queries.parquet").toString());
    embed(work.resolve("queries.parquet"), "queries");

    try (Connection duckdb = DriverManager.getConnection("jdbc:duckdb:")) {
      execute(duckdb, body(blocks.get(0)));                         // candidate pairs
      runJob(body(blocks.get(1)), "rerank.conf");                   // cross-encoder job
      List<String[]> best = query(duckdb, body(blocks.get(2)), 3);  // the new order
      Map<String, List<Double>> scores = new HashMap<>();
      for (Row r : spark.read().parquet(work.resolve("reranked/embeddings").toString())
          .collectAsList()) {
        scores.computeIfAbsent(r.getAs("query_id"), k -> new ArrayList<>())
            .add(SparkInputs.vector(r.getAs("scores"))[0]);
      }
      assertEquals(QUERIES.length * 10, best.size(), "10 passages for each query");
      for (String query : scores.keySet()) {
        assertEquals(100, scores.get(query).size(), "100 candidates for " + query);
        List<Double> top = scores.get(query).stream().sorted((a, b) -> Double.compare(b, a))
            .limit(10).toList();
        List<Double> shown = best.stream().filter(r -> r[0].equals(query))
            .map(r -> Double.parseDouble(r[2])).toList();
        for (int i = 0; i < 10; i++) {
          assertEquals(top.get(i), shown.get(i), 1e-6, query + " rank " + (i + 1));
        }
      }

      writeLongDocuments();
      runJob(body(blocks.get(3)), "chunks.conf");
      List<String[]> chunks = query(duckdb, body(blocks.get(4)), 5);
      assertEquals(QUERIES.length, chunks.size(), "one best chunk per query");
      Map<String, String> bodies = new HashMap<>();
      List<Row> chunkRows = spark.read().parquet(work.resolve("chunks/embeddings").toString())
          .collectAsList();
      for (Row r : chunkRows) {
        bodies.put(r.getAs("id") + "#" + r.getAs("chunk"), sliceOfCodePoints(r.getAs("body"),
            r.getAs("chunk_start"), r.getAs("chunk_end")));
      }
      assertTrue(chunkRows.size() > 5, "the documents were cut: " + chunkRows.size());
      for (String[] row : chunks) {
        assertEquals(bodies.get(row[1] + "#" + row[2]), row[4],
            "the printed passage is the window's text, as Python slices it");
      }
      System.out.println("ReadmeRecipesTest: best chunks " + chunks.stream()
          .map(r -> r[0] + " -> " + r[1] + "#" + r[2]).toList());
    }
  }

  /**
   * attention.md's analyses on the sample's glosses: the jobs as written, then heads ranked by
   * importance (the table's order and values), two categories' statistics against each other
   * (the differences of head-stats/), and a norm map beside its weight map (each of the norm
   * map's columns the weight map's times one number, the key's value norm).
   */
  @Test
  void attentionAnalysesRunAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## Analyses: heads ranked, two slices, norms beside");
    assertEquals(List.of("hocon", "hocon", "sql", "sql", "sql"),
        blocks.stream().map(b -> b.substring(0, b.indexOf('\n'))).toList(), "the blocks");
    SparkSession spark = SparkTestSession.get();
    spark.read().parquet(ROOT.resolve("data-samples/texts.parquet").toString()).coalesce(1)
        .write().parquet(work.resolve("texts.parquet").toString());
    runJob(body(blocks.get(0)), "analysis.conf");
    runJob(body(blocks.get(1)), "analysis-weights.conf");
    try (Connection duckdb = DriverManager.getConnection("jdbc:duckdb:")) {
      List<String[]> ranked = query(duckdb, body(blocks.get(2)), 4);
      List<Row> table = spark.read().parquet(work.resolve("analysis/head-importance")
          .toString()).orderBy(org.apache.spark.sql.functions.col("importance").desc())
          .limit(10).collectAsList();
      assertEquals(10, ranked.size());
      for (int i = 0; i < 10; i++) {
        assertEquals(table.get(i).<Double>getAs("importance"),
            Double.parseDouble(ranked.get(i)[2]), 1e-12, "rank " + (i + 1));
        assertTrue(Long.parseLong(ranked.get(i)[3]) > 20, "about one row in ten of 400");
      }

      List<String[]> slices = query(duckdb, body(blocks.get(3)), 4);
      Map<String, Double> entropy = new HashMap<>();
      for (Row r : spark.read().parquet(work.resolve("analysis/head-stats").toString())
          .collectAsList()) {
        entropy.put(r.getAs("category") + "/" + r.getAs("layer") + "/" + r.getAs("head"),
            r.getAs("entropy"));
      }
      assertEquals(10, slices.size());
      for (String[] row : slices) {
        String head = "/" + row[0] + "/" + row[1];
        assertEquals(entropy.get("animal" + head) - entropy.get("food" + head),
            Double.parseDouble(row[2]), 1e-9, "layer and head" + head);
      }

      List<String[]> beside = query(duckdb, body(blocks.get(4)), 3);
      assertEquals(12, beside.size(), "every head of layer 5");
      for (String[] row : beside) {
        double[][] norms = matrixOf(row[1]);
        double[][] weights = matrixOf(row[2]);
        for (int j = 0; j < norms.length; j++) {
          double scale = norms[0][j] / weights[0][j];
          assertTrue(scale > 0, "a value norm is positive");
          for (int i = 0; i < norms.length; i++) {
            assertEquals(weights[i][j] * scale, norms[i][j], 1e-4 * scale,
                "head " + row[0] + " query " + i + " key " + j);
          }
        }
      }
    }
  }

  /** A DuckDB FLOAT[][] as text ([[0.1, 0.2], [...]]) read back. */
  private static double[][] matrixOf(String text) {
    String[] rows = text.substring(2, text.length() - 2).split("\\],\\s*\\[");
    double[][] m = new double[rows.length][];
    for (int i = 0; i < rows.length; i++) {
      m[i] = java.util.Arrays.stream(rows[i].split(",")).map(String::trim)
          .mapToDouble(Double::parseDouble).toArray();
    }
    return m;
  }

  /**
   * The Qwen3-Reranker recipe on three pairs, with the test's random Qwen3-Reranker folder: one
   * score a pair, the sigmoid of its logit.
   */
  @Test
  void qwen3RerankerRecipeRunsAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## Rerank pairs with Qwen3-Reranker");
    assertEquals(List.of("hocon"), blocks.stream().map(b -> b.substring(0, b.indexOf('\n')))
        .toList(), "the recipe's blocks");
    SparkSession spark = SparkTestSession.get();
    List<Row> pairs = new ArrayList<>();
    for (int i = 0; i < QUERIES.length; i++) {
      pairs.add(RowFactory.create("d" + i, "q" + i, QUERIES[i], "a gloss of the sample " + i));
    }
    spark.createDataFrame(pairs, new StructType().add("doc_id", DataTypes.StringType)
        .add("query_id", DataTypes.StringType).add("query", DataTypes.StringType)
        .add("passage", DataTypes.StringType)).coalesce(1).write()
        .parquet(work.resolve("pairs.parquet").toString());
    runJob(body(blocks.get(0)), "rerank-qwen3.conf");
    List<Row> rows = spark.read().parquet(work.resolve("reranked-qwen3/embeddings").toString())
        .collectAsList();
    assertEquals(QUERIES.length, rows.size());
    for (Row r : rows) {
      double logit = SparkInputs.vector(r.getAs("logits"))[0];
      double score = SparkInputs.vector(r.getAs("scores"))[0];
      assertEquals(1 / (1 + Math.exp(-logit)), score, 1e-6, (String) r.getAs("doc_id"));
    }
  }

  /**
   * The entity and hybrid-search recipes: a random NER folder over the sample's glosses, its
   * entity table against one counted here; a random SPLADE folder and all-MiniLM-L6-v2 over the
   * glosses and three queries, the hybrid top 10 against scores computed here from the tables.
   */
  @Test
  void entityAndHybridSearchRecipesRunAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## Entities and sparse vectors");
    assertEquals(List.of("hocon", "sql", "hocon", "sql"),
        blocks.stream().map(b -> b.substring(0, b.indexOf('\n'))).toList(),
        "the recipes' blocks, in order");
    SparkSession spark = SparkTestSession.get();
    writeDocsAndQueries(spark);

    runJob(body(blocks.get(0)), "ner.conf");
    Map<String, Long> counted = new HashMap<>();
    for (Row r : spark.read().parquet(work.resolve("entities/embeddings").toString())
        .collectAsList()) {
      for (Row e : r.<Row>getList(r.fieldIndex("entities"))) {
        counted.merge(e.getAs("text") + "|" + e.getAs("label"), 1L, Long::sum);
      }
    }
    try (Connection duckdb = DriverManager.getConnection("jdbc:duckdb:")) {
      List<String[]> table = query(duckdb, body(blocks.get(1)), 3);
      assertEquals(counted.size(), table.size(), "one row per entity and label");
      for (String[] row : table) {
        assertEquals(counted.get(row[0] + "|" + row[1]), Long.parseLong(row[2]), row[0]);
      }
      assertTrue(table.size() > 20, table.size() + " entities");

      String splade = body(blocks.get(2));
      runJob(splade, "splade.conf");
      runJob(splade.replace("docs.parquet", "queries.parquet")
          .replace("\"sparse\"", "\"sparse-queries\""), "splade-queries.conf");
      embed(work.resolve("docs.parquet"), "dense", "body");
      embed(work.resolve("queries.parquet"), "dense-queries", "body");
      List<String[]> best = query(duckdb, body(blocks.get(3)), 5);
      assertEquals(QUERIES.length * 10, best.size(), "10 passages for each query");
      Map<String, Double> hybrid = hybridScores(spark);
      for (String[] row : best) {
        assertEquals(hybrid.get(row[0] + "|" + row[1]), Double.parseDouble(row[4]), 1e-5,
            row[0] + " " + row[1]);
      }
      for (String query : List.of("q0", "q1", "q2")) {
        List<Double> top = hybrid.entrySet().stream().filter(e -> e.getKey()
            .startsWith(query + "|")).map(Map.Entry::getValue)
            .sorted((a, b) -> Double.compare(b, a)).limit(10).toList();
        List<Double> shown = best.stream().filter(r -> r[0].equals(query))
            .map(r -> Double.parseDouble(r[4])).toList();
        assertEquals(top.get(9), shown.get(9), 1e-5, query + ": the tenth best");
      }
    }
  }

  /**
   * The bge-m3 recipe with the test's random bge-m3 folder over the sample's glosses and three
   * queries: the Spark SQL MaxSim top 10 and the DuckDB mix of dense, lexical and ColBERT scores
   * against scores computed here from the tables.
   */
  @Test
  void m3RecipesRunAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## bge-m3: dense, lexical and ColBERT scores");
    assertEquals(List.of("hocon", "sql", "sql"), blocks.stream()
        .map(b -> b.substring(0, b.indexOf('\n'))).toList(), "the recipe's blocks, in order");
    SparkSession spark = SparkTestSession.get();
    writeDocsAndQueries(spark);
    String job = body(blocks.get(0));
    runJob(job, "m3.conf");
    runJob(job.replace("docs.parquet", "queries.parquet").replace("\"m3\"", "\"m3-queries\""),
        "m3-queries.conf");

    Map<String, Row> docs = byId(spark, "m3");
    Map<String, Row> qs = byId(spark, "m3-queries");
    Map<String, double[]> scores = new HashMap<>();   // query|doc -> dense, lexical, ColBERT
    for (String q : qs.keySet()) {
      Map<Integer, Float> terms = sparse(qs.get(q));
      double[][] qv = SparkInputs.matrix(qs.get(q).getAs("multi_vectors"));
      double[] qd = SparkInputs.vector(qs.get(q).getAs("pooled"));
      for (String d : docs.keySet()) {
        double lexical = 0;
        for (Map.Entry<Integer, Float> t : sparse(docs.get(d)).entrySet()) {
          lexical += terms.getOrDefault(t.getKey(), 0f) * (double) t.getValue();
        }
        double colbert = maxSim(qv, SparkInputs.matrix(docs.get(d).getAs("multi_vectors")))
            / qv.length;
        scores.put(q + "|" + d, new double[] {dot(qd, SparkInputs.vector(docs.get(d)
            .getAs("pooled"))), lexical, colbert});
      }
    }

    String[] sparkSql = absolute(body(blocks.get(1))).split(";\\s*\\n");
    List<Row> maxSim = null;
    for (String statement : sparkSql) {
      if (!statement.isBlank()) {
        maxSim = spark.sql(statement.replaceAll(";\\s*$", "")).collectAsList();
      }
    }
    assertRanked(maxSim.stream().map(r -> new String[] {r.getString(0), r.getString(1),
        String.valueOf(r.getDouble(2))}).toList(), scores, 2, 2);
    try (Connection duckdb = DriverManager.getConnection("jdbc:duckdb:")) {
      List<String[]> mixed = query(duckdb, body(blocks.get(2)), 6);
      for (String[] row : mixed) {
        double[] want = scores.get(row[0] + "|" + row[1]);
        for (int c = 0; c < 3; c++) {
          assertEquals(want[c], Double.parseDouble(row[2 + c]), 1e-5, row[0] + " " + row[1]);
        }
      }
      Map<String, double[]> weighted = new HashMap<>();
      scores.forEach((k, v) -> weighted.put(k, new double[] {0.4 * v[0] + 0.2 * v[1]
          + 0.4 * v[2]}));
      assertRanked(mixed.stream().map(r -> new String[] {r[0], r[1], r[5]}).toList(), weighted,
          0, 2);
    }
  }

  /**
   * The PyLate recipe with the test's random ModernBERT ColBERT folder: documents, then queries
   * with input.role = query, and the Spark SQL MaxSim top 10 against PyLate's sum computed here.
   */
  @Test
  void pylateRecipeRunsAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## PyLate ColBERT folders: queries and documents");
    assertEquals(List.of("hocon", "sql"), blocks.stream()
        .map(b -> b.substring(0, b.indexOf('\n'))).toList(), "the recipe's blocks, in order");
    SparkSession spark = SparkTestSession.get();
    writeDocsAndQueries(spark);
    String job = body(blocks.get(0));
    runJob(job, "colbert.conf");
    runJob(job.replace("docs.parquet", "queries.parquet")
        .replace("\"colbert\"", "\"colbert-queries\"") + "\ninput.role = query\n",
        "colbert-queries.conf");
    Map<String, Row> docs = byId(spark, "colbert");
    Map<String, Row> qs = byId(spark, "colbert-queries");
    Map<String, double[]> scores = new HashMap<>();
    for (String q : qs.keySet()) {
      double[][] qv = SparkInputs.matrix(qs.get(q).getAs("multi_vectors"));
      assertEquals(12, qv.length, q + ": a vector for each of query_length tokens");
      for (String d : docs.keySet()) {
        scores.put(q + "|" + d, new double[] {maxSim(qv, SparkInputs.matrix(docs.get(d)
            .getAs("multi_vectors")))});
      }
    }
    assertRanked(sparkRanked(spark, body(blocks.get(1))), scores, 0, 2);
  }

  @Test
  void staticEmbeddingsRecipeRunsAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## Static embeddings: a corpus in seconds");
    assertEquals(List.of("hocon", "sql"), blocks.stream()
        .map(b -> b.substring(0, b.indexOf('\n'))).toList(), "the recipe's blocks, in order");
    SparkSession spark = SparkTestSession.get();
    writeDocsAndQueries(spark);
    String job = body(blocks.get(0));
    runJob(job, "static.conf");
    runJob(job.replace("docs.parquet", "queries.parquet")
        .replace("\"static\"", "\"static-queries\""), "static-queries.conf");
    Map<String, Row> docs = byId(spark, "static");
    Map<String, Row> qs = byId(spark, "static-queries");
    Map<String, double[]> scores = new HashMap<>();
    for (String q : qs.keySet()) {
      double[] qv = SparkInputs.vector(qs.get(q).getAs("pooled"));
      for (String d : docs.keySet()) {
        scores.put(q + "|" + d, new double[] {dot(qv, SparkInputs.vector(docs.get(d)
            .getAs("pooled")))});
      }
    }
    assertRanked(sparkRanked(spark, body(blocks.get(1))), scores, 0, 2);
  }

  /**
   * Late chunking on the sample's long documents: every chunk has the span of the separately
   * encoded window it is compared with, the printed cosines are those of the written vectors,
   * and the late vectors differ from the separate ones (the rest of the document moved them).
   */
  @Test
  void lateChunkingRecipeRunsAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## Late chunking");
    assertEquals(List.of("hocon", "hocon", "sql"), blocks.stream()
        .map(b -> b.substring(0, b.indexOf('\n'))).toList(), "the recipe's blocks, in order");
    SparkSession spark = SparkTestSession.get();
    writeLongDocuments();
    runJob(body(blocks.get(0)), "late.conf");
    runJob(body(blocks.get(1)), "separate.conf");
    Map<String, List<Double>> cosines = new HashMap<>();
    Map<String, Row> separate = new HashMap<>();
    for (Row r : spark.read().parquet(work.resolve("separate/embeddings").toString())
        .collectAsList()) {
      separate.put(r.getAs("id") + "#" + r.getAs("chunk"), r);
    }
    for (Row r : spark.read().parquet(work.resolve("late/embeddings").toString())
        .collectAsList()) {
      Row s = separate.get(r.getAs("id") + "#" + r.getAs("chunk"));
      cosines.computeIfAbsent(r.getAs("id"), k -> new ArrayList<>()).add(dot(
          SparkInputs.vector(r.getAs("pooled")), SparkInputs.vector(s.getAs("pooled"))));
    }
    try (Connection duckdb = DriverManager.getConnection("jdbc:duckdb:")) {
      List<String[]> rows = query(duckdb, body(blocks.get(2)), 5);
      assertEquals(cosines.size(), rows.size(), "a line per document");
      double least = 1;
      for (String[] row : rows) {
        List<Double> mine = cosines.get(row[0]);
        assertEquals(mine.size(), Integer.parseInt(row[1]), row[0] + ": chunks");
        assertEquals("0", row[2], row[0] + ": the same spans");
        assertEquals(mine.stream().mapToDouble(d -> d).average().orElseThrow(),
            Double.parseDouble(row[3]), 6e-4, row[0] + ": mean cosine");
        least = Math.min(least, Double.parseDouble(row[4]));
      }
      assertTrue(least < 0.99, "late chunks differ from separate ones: least cosine " + least);
      System.out.println("ReadmeRecipesTest: late against separate chunks " + rows.stream()
          .map(r -> r[0] + " " + r[1] + " chunks, mean " + r[3] + ", least " + r[4]).toList());
    }
  }

  @Test
  void taskAndInstructionRecipesRunAsWritten() throws Exception {
    List<String> blocks = readmeBlocks("## Task adapters and instructions");
    assertEquals(List.of("hocon", "hocon"), blocks.stream()
        .map(b -> b.substring(0, b.indexOf('\n'))).toList(), "the recipe's blocks, in order");
    writeDocsAndQueries(SparkTestSession.get());
    runJob(body(blocks.get(0)), "jina-docs.conf");
    runJob(body(blocks.get(1)), "nv-queries.conf");
    String jina = Files.readString(work.resolve("jina-docs/run-summary.json"));
    assertTrue(jina.contains("\"family\" : \"jina-xlm-roberta\"")
        && jina.contains("\"prompt_name\" : \"retrieval.passage\""), jina);
    String nv = Files.readString(work.resolve("nv-queries/run-summary.json"));
    assertTrue(nv.contains("\"family\" : \"nvembed\"") && nv.contains("Instruct: "), nv);
  }

  /**
   * A model2vec folder of potion's form for the recipe: all-MiniLM-L6-v2's tokenizer (the
   * bert-base-uncased vocabulary potion-base distils from), a random table of 16 values a token,
   * {@code normalize}.
   */
  private Path potion() throws Exception {
    Path folder = work.resolve("potion-base-8M");
    if (Files.isDirectory(folder)) {
      return folder;
    }
    Files.createDirectories(folder);
    Path tokenizer = SharedModels.miniLm().resolve("tokenizer.json");
    Files.createSymbolicLink(folder.resolve("tokenizer.json"), tokenizer);
    Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"model2vec\", "
        + "\"architectures\": [\"StaticModel\"], \"normalize\": true, \"hidden_dim\": 16}");
    int tokens = io.corpus.encoder.text.TextTokenizer.vocabulary(Files.readAllBytes(tokenizer))
        .highestId() + 1;
    int width = 16;
    byte[] header = ("{\"embeddings\":{\"dtype\":\"F32\",\"shape\":[" + tokens + "," + width
        + "],\"data_offsets\":[0," + 4L * tokens * width + "]}}").getBytes(StandardCharsets.UTF_8);
    java.nio.ByteBuffer file = java.nio.ByteBuffer.allocate(8 + header.length
        + 4 * tokens * width).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    file.putLong(header.length).put(header);
    java.util.Random random = new java.util.Random(8);
    for (int i = 0; i < tokens * width; i++) {
      file.putFloat((float) random.nextGaussian());
    }
    Files.write(folder.resolve("model.safetensors"), file.array());
    return folder;
  }

  /** A recipe's SQL statements run in Spark: the last one's (query, doc, score) rows. */
  private List<String[]> sparkRanked(SparkSession spark, String sql) {
    List<Row> ranked = null;
    for (String statement : absolute(sql).split(";\\s*\\n")) {
      if (!statement.isBlank()) {
        ranked = spark.sql(statement.replaceAll(";\\s*$", "")).collectAsList();
      }
    }
    return ranked.stream().map(r -> new String[] {r.getString(0), r.getString(1),
        String.valueOf(r.getDouble(2))}).toList();
  }

  /**
   * {@code rows} (query, doc, score in column {@code column}) are each query's 10 best by
   * {@code scores[k]}, in order, within 1e-5.
   */
  private static void assertRanked(List<String[]> rows, Map<String, double[]> scores, int k,
      int column) {
    assertEquals(QUERIES.length * 10, rows.size(), "10 passages for each query");
    for (String query : List.of("q0", "q1", "q2")) {
      List<Double> top = scores.entrySet().stream().filter(e -> e.getKey()
          .startsWith(query + "|")).map(e -> e.getValue()[k])
          .sorted((a, b) -> Double.compare(b, a)).limit(10).toList();
      List<String[]> shown = rows.stream().filter(r -> r[0].equals(query)).toList();
      for (int i = 0; i < 10; i++) {
        assertEquals(scores.get(query + "|" + shown.get(i)[1])[k],
            Double.parseDouble(shown.get(i)[column]), 1e-5, query + " " + shown.get(i)[1]);
        assertEquals(top.get(i), Double.parseDouble(shown.get(i)[column]), 1e-5,
            query + " rank " + (i + 1));
      }
    }
  }

  /** The sum over the query's vectors of each one's best dot product with the document's. */
  private static double maxSim(double[][] query, double[][] document) {
    double sum = 0;
    for (double[] a : query) {
      double best = Double.NEGATIVE_INFINITY;
      for (double[] b : document) {
        best = Math.max(best, dot(a, b));
      }
      sum += best;
    }
    return sum;
  }

  private static double dot(double[] a, double[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += a[i] * b[i];
    }
    return sum;
  }

  /** (query|doc) → 0.5 · cosine + 0.5 · sparse dot / the query's best sparse dot. */
  private Map<String, Double> hybridScores(SparkSession spark) {
    Map<String, Row> queries = byId(spark, "dense-queries");
    Map<String, Row> docs = byId(spark, "dense");
    Map<String, Row> sparseQueries = byId(spark, "sparse-queries");
    Map<String, Row> sparseDocs = byId(spark, "sparse");
    Map<String, Double> out = new HashMap<>();
    for (String q : queries.keySet()) {
      Map<Integer, Float> terms = sparse(sparseQueries.get(q));
      Map<String, Double> dots = new HashMap<>();
      double best = 0;
      for (String d : docs.keySet()) {
        double dot = 0;
        for (Map.Entry<Integer, Float> t : sparse(sparseDocs.get(d)).entrySet()) {
          dot += terms.getOrDefault(t.getKey(), 0f) * (double) t.getValue();
        }
        dots.put(d, dot);
        best = Math.max(best, dot);
      }
      double[] a = SparkInputs.vector(queries.get(q).getAs("pooled"));
      for (String d : docs.keySet()) {
        double[] b = SparkInputs.vector(docs.get(d).getAs("pooled"));
        out.put(q + "|" + d, 0.5 * Tolerances.cosine(a, b) + 0.5 * dots.get(d) / best);
      }
    }
    return out;
  }

  private Map<String, Row> byId(SparkSession spark, String table) {
    Map<String, Row> rows = new HashMap<>();
    spark.read().parquet(work.resolve(table).resolve("embeddings").toString()).collectAsList()
        .forEach(r -> rows.put(r.getAs("id"), r));
    return rows;
  }

  private static Map<Integer, Float> sparse(Row row) {
    List<Integer> indices = row.getList(row.fieldIndex("sparse_indices"));
    List<Float> values = row.getList(row.fieldIndex("sparse_values"));
    Map<Integer, Float> out = new HashMap<>();
    for (int i = 0; i < indices.size(); i++) {
      out.put(indices.get(i), values.get(i));
    }
    return out;
  }

  /**
   * The fenced blocks of the section {@code title}, in the README or the documents it links
   * under src/site/markdown, each with its language line.
   */
  private static List<String> readmeBlocks(String title) throws Exception {
    String readme = null;
    List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (java.util.stream.Stream<Path> site = Files.list(ROOT.resolve("src/site/markdown"))) {
      site.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    for (Path document : documents) {
      String text = Files.readString(document);
      if (text.contains(title)) {
        readme = text;
        break;
      }
    }
    assertNotNull(readme, "no document has the section " + title);
    int from = readme.indexOf(title);
    int next = readme.indexOf("\n## ", from + 3);
    String section = readme.substring(from, next < 0 ? readme.length() : next);
    List<String> blocks = new ArrayList<>();
    Matcher m = Pattern.compile("```(\\w+)\\n(.*?)```", Pattern.DOTALL).matcher(section);
    while (m.find()) {
      blocks.add(m.group(1) + "\n" + m.group(2));
    }
    return blocks;
  }

  private static String body(String block) {
    return block.substring(block.indexOf('\n') + 1);
  }

  /** A block's relative paths ('docs/…', 'pairs.parquet') made absolute in the working folder. */
  private String absolute(String sql) {
    return sql.replaceAll("'((?:docs|queries|reranked|chunks|entities|sparse|sparse-queries"
        + "|dense|dense-queries|m3|m3-queries|colbert|colbert-queries|static|static-queries"
        + "|jina-docs|nv-queries|late|separate"
        + "|analysis|analysis-weights)"
        + "/[^']*|[\\w-]+\\.parquet)'",
        "'" + work.toString().replace("\\", "\\\\") + "/$1'");
  }

  private void execute(Connection duckdb, String sql) throws Exception {
    try (Statement s = duckdb.createStatement()) {
      for (String statement : absolute(sql).split(";\\s*\\n")) {
        if (!statement.isBlank()) {
          s.execute(statement);
        }
      }
    }
  }

  private List<String[]> query(Connection duckdb, String sql, int columns) throws Exception {
    List<String[]> rows = new ArrayList<>();
    try (Statement s = duckdb.createStatement();
        ResultSet r = s.executeQuery(absolute(sql).replaceAll(";\\s*$", ""))) {
      while (r.next()) {
        String[] row = new String[columns];
        for (int c = 0; c < columns; c++) {
          row[c] = r.getString(c + 1);
        }
        rows.add(row);
      }
    }
    return rows;
  }

  private void embed(Path input, String output) throws Exception {
    embed(input, output, "text");
  }

  private void embed(Path input, String output, String column) throws Exception {
    runJob("input { path = \"" + input + "\", text-column = " + column + " }\n"
        + "model.path = \"/models/all-MiniLM-L6-v2\"\n"
        + "output { path = \"" + output + "\", token-embeddings = false }\n", output + ".conf");
  }

  /** Runs a README config, its model paths pointed at the test's folders. */
  private void runJob(String hocon, String name) throws Exception {
    Path config = work.resolve(name);
    Files.writeString(config, hocon
        .replace("\"/models/my-cross-encoder\"", "\"" + crossEncoder() + "\"")
        .replace("\"/models/all-MiniLM-L6-v2\"", "\"" + MINILM + "\"")
        .replace("\"/models/my-ner-model\"", "\"" + ROOT.resolve(
            "src/test/resources/token-cases/bert-ner") + "\"")
        .replace("\"/models/Qwen3-Reranker-0.6B\"", "\"" + ROOT.resolve(
            "src/test/resources/reranker-cases/qwen3-reranker") + "\"")
        .replace("\"/models/my-splade-model\"", "\"" + ROOT.resolve(
            "src/test/resources/splade-cases/splade-max") + "\"")
        .replace("\"/models/bge-m3\"", "\"" + ROOT.resolve("src/test/resources/m3-cases/bge-m3")
            + "\"")
        .replace("\"/models/jina-embeddings-v3\"", "\"" + ROOT.resolve(
            "src/test/resources/xlmr-cases/jina-v3") + "\"")
        .replace("\"/models/NV-Embed-v2\"", "\"" + ROOT.resolve(
            "src/test/resources/nvembed-cases/nv-embed-v2") + "\"")
        .replace("\"/models/potion-base-8M\"", "\"" + (hocon.contains("potion-base-8M")
            ? potion() : "") + "\"")
        .replace("\"/models/GTE-ModernColBERT-v1\"", "\"" + ROOT.resolve(
            "src/test/resources/pylate-cases/colbert-modernbert") + "\"")
        + "\nexecution.progress = false\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, exit, name + ": " + err.toString(StandardCharsets.UTF_8));
  }

  /** The test's 1-label CrossEncoder folder with all-MiniLM-L6-v2's tokenizer beside it. */
  private Path crossEncoder() throws Exception {
    Path folder = work.resolve("my-cross-encoder");
    if (!Files.isDirectory(folder)) {
      Files.createDirectories(folder);
      Path cases = ROOT.resolve("src/test/resources/classifier-cases/cross-encoder-1-label");
      for (String file : List.of("config.json", "model.safetensors")) {
        Files.createSymbolicLink(folder.resolve(file), cases.resolve(file));
      }
      Files.createSymbolicLink(folder.resolve("tokenizer.json"),
          SharedModels.miniLm().resolve("tokenizer.json"));
    }
    return folder;
  }

  /** docs.parquet (the sample's glosses) and queries.parquet (the three queries), as (id, body). */
  private void writeDocsAndQueries(SparkSession spark) {
    spark.read().parquet(ROOT.resolve("data-samples/texts.parquet").toString())
        .withColumnRenamed("text", "body").coalesce(1).write()
        .parquet(work.resolve("docs.parquet").toString());
    List<Row> queries = new ArrayList<>();
    for (int i = 0; i < QUERIES.length; i++) {
      queries.add(RowFactory.create("q" + i, QUERIES[i]));
    }
    spark.createDataFrame(queries, new StructType().add("id", DataTypes.StringType)
        .add("body", DataTypes.StringType)).coalesce(1).write()
        .parquet(work.resolve("queries.parquet").toString());
  }

  /** docs.parquet: one long document per category, its glosses one after another. */
  private void writeLongDocuments() {
    SparkSession spark = SparkTestSession.get();
    spark.read().parquet(ROOT.resolve("data-samples/texts.parquet").toString())
        .groupBy("category").agg(org.apache.spark.sql.functions.concat_ws(" ",
            org.apache.spark.sql.functions.collect_list("text")).as("body"))
        .withColumnRenamed("category", "id").coalesce(1).write()
        .parquet(work.resolve("docs.parquet").toString());
  }

  private static String sliceOfCodePoints(String text, int start, int end) {
    return text.codePoints().skip(start).limit(end - start).collect(StringBuilder::new,
        StringBuilder::appendCodePoint, StringBuilder::append).toString();
  }
}
