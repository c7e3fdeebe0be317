package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.lit;

import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ids that more than one written row carries: the job writes every input row, so an input that
 * repeats an id gets vectors under the same id twice, and a join on it multiplies rows. One
 * aggregation over the written table's id column (its rows and distinct ids) finds whether there
 * are any; only then are they grouped, counted and warned about with a few examples.
 *
 * @param rows rows of the table (one per input row written)
 * @param ids ids on more than one row
 * @param extraRows rows beyond the first of each such id
 */
record DuplicateIds(long rows, long ids, long extraRows) {
  private static final Logger LOG = LoggerFactory.getLogger(DuplicateIds.class);
  private static final int EXAMPLES = 3;

  /** Up to three keys that more than one of {@code rows} carries, as strings. */
  static List<String> examples(Dataset<Row> rows, Column... key) {
    return rows.groupBy(key).count().where(col("count").gt(1)).limit(EXAMPLES)
        .collectAsList().stream().map(r -> r.size() == 2 ? String.valueOf(r.get(0))
            : r.get(0) + " window " + r.get(1)).toList();
  }

  /** None: {@code rows} rows whose ids are known to differ ({@link InputIdCheck}). */
  static DuplicateIds none(long rows) {
    return new DuplicateIds(rows, 0, 0);
  }

  /** Counts {@code rows} (one per input row written) and their repeated ids, and warns of them. */
  static DuplicateIds of(Dataset<Row> rows, String idColumn) {
    Row totals = rows.agg(count(lit(1)), countDistinct(col(idColumn))).first();
    long n = totals.getLong(0);
    long extra = n - totals.getLong(1);   // ids are never null: null ids are rejected
    if (extra == 0) {
      return new DuplicateIds(n, 0, 0);
    }
    Dataset<Row> repeated = rows.groupBy(col(idColumn)).count().where(col("count").gt(1));
    DuplicateIds found = new DuplicateIds(n, repeated.count(), extra);
    List<String> examples = repeated.select(col(idColumn).cast("string")).limit(EXAMPLES)
        .collectAsList().stream().map(r -> String.valueOf(r.get(0))).toList();
    LOG.warn("{} ids are on more than one row ({} rows repeat an id), for example {}: each row "
        + "is written with its own vectors, so a join on {} multiplies rows", found.ids(),
        found.extraRows(), examples, idColumn);
    return found;
  }
}
