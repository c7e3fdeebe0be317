package io.corpus.encoder.cli;

import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.LocalPaths;
import io.corpus.encoder.io.ParquetSample;
import io.corpus.encoder.pipeline.HeldPrompts;
import io.corpus.encoder.text.PromptPrefixes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How many of the input's first texts already begin with a prompt of the folder (or a label of
 * a reranker's template) where the job is about to put one before every text: read before Spark
 * starts, for {@code --check}'s line and for {@code input.on-already-prompted = fail}, which
 * refuses the job here when the sample holds one. The job itself counts every row it encodes.
 *
 * @param sampled rows read
 * @param files files they came from
 * @param passedOver files not sampled (a first row group too large to read for a sample)
 * @param byPrefix how many texts held each prefix, in order of the most
 * @param prompts what was looked for
 */
record PromptedSample(int sampled, int files, int passedOver,
    Map<PromptPrefixes.Prefix, Integer> byPrefix, HeldPrompts prompts) {
  /** The most rows read, over all files. */
  static final int ROWS = 2_000;

  /** The first rows of {@code files}' text columns, each looked at for what it holds. */
  static PromptedSample of(HeldPrompts held, JobSettings.Input input, List<String> files) {
    List<String> columns = new ArrayList<>(List.of(input.textColumn()));
    if (!input.pairColumn().isEmpty()) {
      columns.add(input.pairColumn());
    }
    ParquetSample.Sample sample = ParquetSample.of(files, columns, ROWS,
        LocalPaths.beforeSpark());
    Map<PromptPrefixes.Prefix, Integer> counts = new LinkedHashMap<>();
    for (String[] row : sample.rows()) {
      PromptPrefixes.Prefix prefix = held.heldBy(row[0], row.length > 1 ? row[1] : null);
      if (prefix != null) {
        counts.merge(prefix, 1, Integer::sum);
      }
    }
    Map<PromptPrefixes.Prefix, Integer> byPrefix = new LinkedHashMap<>();
    counts.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue())
        .forEach(e -> byPrefix.put(e.getKey(), e.getValue()));
    return new PromptedSample(sample.rows().size(), sample.files(), sample.passedOver(),
        byPrefix, held);
  }

  /** Rows of the sample whose text held one. */
  int held() {
    return byPrefix.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** "3 begin with 'query: ' (query), 1 with 'passage: ' (passage)". */
  private String which() {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<PromptPrefixes.Prefix, Integer> e : byPrefix.entrySet()) {
      s.append(s.length() == 0 ? String.format("%,d begin with ", e.getValue())
          : String.format(", %,d with ", e.getValue())).append(e.getKey().shown());
    }
    return s.toString();
  }

  private String of() {
    return String.format("of the first %,d rows of %,d input file%s", sampled, files,
        files == 1 ? "" : "s") + (passedOver == 0 ? "" : String.format(" (%,d file%s not "
            + "sampled: a first row group over %d MB, or without the column)", passedOver,
            passedOver == 1 ? "" : "s", ParquetSample.MOST_CHUNK_BYTES >> 20));
  }

  /** {@code --check}'s line. */
  String line() {
    if (held() == 0) {
      return "already prompted: none " + of() + " begins with " + prompts.what();
    }
    return "already prompted: " + of() + ", " + which() + ", " + prompts.what() + " the job "
        + "puts before each text" + (prompts.template() ? " in its template" : "") + "; "
        + prompts.choices();
  }

  /** The refusal of {@code input.on-already-prompted = fail}, when the sample holds one. */
  String refusal() {
    return "input.on-already-prompted = fail: " + of() + ", " + which() + ", "
        + prompts.what() + "; " + prompts.choices();
  }
}
