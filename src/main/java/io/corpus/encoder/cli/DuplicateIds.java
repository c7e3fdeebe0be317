package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ids that more than one written row carries: the job writes every input row, so an input that
 * repeats an id gets vectors under the same id twice, and a join on it multiplies rows. Counted
 * over the written table's id column (one aggregation, no other column read) and warned about
 * with a few examples.
 *
 * @param ids ids on more than one row
 * @param extraRows rows beyond the first of each such id
 */
record DuplicateIds(long ids, long extraRows) {
  private static final Logger LOG = LoggerFactory.getLogger(DuplicateIds.class);
  private static final int EXAMPLES = 3;

  /** Counts the repeated ids of {@code rows} (one per input row written) and warns of them. */
  static DuplicateIds of(Dataset<Row> rows, String idColumn) {
    Dataset<Row> repeated = rows.groupBy(col(idColumn)).count().where(col("count").gt(1));
    Row totals = repeated.agg(count(lit(1)), sum(col("count").minus(1))).first();
    DuplicateIds found = new DuplicateIds(totals.getLong(0),
        totals.isNullAt(1) ? 0 : totals.getLong(1));
    if (found.ids() > 0) {
      List<String> examples = repeated.select(col(idColumn).cast("string")).limit(EXAMPLES)
          .collectAsList().stream().map(r -> String.valueOf(r.get(0))).toList();
      LOG.warn("{} ids are on more than one row ({} rows repeat an id), for example {}: each "
          + "row is written with its own vectors, so a join on {} multiplies rows",
          found.ids(), found.extraRows(), examples, idColumn);
    }
    return found;
  }
}
