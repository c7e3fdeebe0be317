package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.input_file_name;
import static org.apache.spark.sql.functions.regexp_extract;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.KeptPieces;
import io.corpus.encoder.io.ParquetInput;
import io.corpus.encoder.io.RowWeight;
import io.corpus.encoder.io.SplitPlan;
import io.corpus.encoder.pipeline.EncoderTransformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Whether a killed run's kept pieces were computed from the rows the input holds now. The input's
 * files may be rewritten in place keeping their size, time and footer (texts moved between rows
 * of equal length), which the resume identity cannot see; so every row of a kept piece is
 * compared with the input's rows of that piece, by a digest of all its input columns (its
 * {@code input_hash}, which the kept file holds, and every other input column, which it copies).
 * A piece is stale when it holds a row the input's piece no longer holds, or when the input's
 * piece holds a row the kept piece lacks and the encoder would take (not one the killed run set
 * aside as a reject). One job, and the broadcasts of its two sides: the input's rows of the kept
 * pieces are read twice (each split once each time, however many pieces share it), the kept files
 * twice; no forward pass. Driver only.
 */
final class KeptRowsCheck {
  private static final String PIECE = "__corpus_encoder_piece";
  private static final String ROW = "__corpus_encoder_row";

  private KeptRowsCheck() {}

  /** The numbers of {@code kept}'s pieces whose rows are not the input's now. */
  static Set<Integer> stale(Dataset<Row> input, SplitPlan plan, KeptPieces kept,
      RowWeight weight, JobSettings.Input in, EncoderTransformer transformer) {
    Set<Integer> stale = new TreeSet<>();
    if (kept.done().isEmpty()) {
      return stale;
    }
    List<String> copied = new ArrayList<>(List.of(input.columns()));
    copied.removeAll(UpdatePlan.hashedColumns(in));
    Dataset<Row> now = ParquetInput.labelled(input, plan, kept.pieces(), kept.done(), weight,
        PIECE).withColumn(UpdatePlan.HASH_COLUMN, UpdatePlan.inputHash(in));
    now = now.withColumn(ROW, digest(copied));
    // the kept files' schema from one footer: no Spark job to infer it
    String[] files = kept.files().toArray(new String[0]);
    Dataset<Row> keptRows = input.sparkSession().read()
        .schema(ParquetInput.read(input.sparkSession(), files[0]).schema()).parquet(files)
        .withColumn(PIECE, regexp_extract(input_file_name(), "part-(\\d+)-", 1).cast("int"));
    keptRows = keptRows.withColumn(ROW, digest(copied)).select(PIECE, ROW);
    Dataset<Row> nowRows = now.select(PIECE, ROW);
    if (kept.rows() <= UpdatePlan.BROADCAST_KEYS_UP_TO) {   // about 80 bytes a row: no shuffle
      keptRows = broadcast(keptRows);
      nowRows = broadcast(nowRows);
    }
    List<String> keys = List.of(PIECE, ROW);
    // kept rows the input no longer holds, and input rows the kept pieces lack that the encoder
    // would take: the pieces of either, in one job
    Dataset<Row> gone = keptRows.join(nowRows, asSeq(keys), "left_anti").select(PIECE);
    Dataset<Row> untaken = now.join(keptRows, asSeq(keys), "left_anti")
        .drop(ROW, UpdatePlan.HASH_COLUMN);
    for (Row r : gone.union(transformer.acceptedRows(untaken).select(PIECE)).collectAsList()) {
      stale.add(r.getInt(0));
    }
    return stale;
  }

  /** A row's digest: its {@code input_hash} and its other input columns, as JSON. */
  private static Column digest(List<String> copied) {
    Column[] columns = copied.stream().map(c -> col("`" + c.replace("`", "``") + "`"))
        .toArray(Column[]::new);
    return sha2(concat_ws("\u0000", col(UpdatePlan.HASH_COLUMN), to_json(struct(columns))),
        256);
  }

  private static scala.collection.immutable.Seq<String> asSeq(List<String> names) {
    return scala.jdk.javaapi.CollectionConverters.asScala(names).toList();
  }
}
