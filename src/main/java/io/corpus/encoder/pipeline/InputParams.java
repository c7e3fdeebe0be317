package io.corpus.encoder.pipeline;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.config.AutoChoices;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings.OnAlreadyPrompted;
import io.corpus.encoder.config.SettingRules;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.text.LateChunking;
import io.corpus.encoder.text.PromptPrefixes;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.Reranker;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.StructType;

/**
 * What an {@link EncoderTransformer}'s input params ask for, checked: the kind of input and its
 * columns, the prompt and the role of the texts, and the source that turns rows into the
 * encoder's input.
 */
final class InputParams {
  private final EncoderTransformer t;

  InputParams(EncoderTransformer t) {
    this.t = t;
  }

  /** What kind of input the params name: exactly one of inputCol, idsCol and textCol. */
  InputKind kind() {
    return SettingRules.inputKind(t);
  }

  private String sequenceCol(InputKind kind) {
    return switch (kind) {
      case TEXT -> t.strings(Settings.TEXT_PAIR_COLUMNS).length > 0
          ? t.strings(Settings.TEXT_PAIR_COLUMNS)[0] : t.string(Settings.TEXT_COLUMN);
      case IDS -> t.string(Settings.IDS_COLUMN);
      case EMBEDDINGS -> t.string(Settings.EMBEDDINGS_COLUMN);
    };
  }

  /** The input columns, checked against the schema and against what the model can read. */
  InputColumns columns(StructType schema) {
    InputKind kind = kind();
    SettingRules.inputModel(kind, t.fromFolder() ? t.folder() : null,
        SettingRules.Naming.PARAMS);
    SettingRules.limits(kind, t);
    Reranker reranker = SettingRules.reranker(t);
    if (reranker != Reranker.NONE
        && (kind != InputKind.TEXT || t.strings(Settings.TEXT_PAIR_COLUMNS).length == 0)) {
      throw new IllegalArgumentException("reranker = " + reranker.configName() + " scores "
          + "text pairs: set textPairCols (input.text-pair-columns), the query then the document");
    }
    if (reranker == Reranker.NONE && !t.string(Settings.INSTRUCTION).isEmpty()) {
      throw new IllegalArgumentException("instruction goes with reranker (model.reranker), "
          + "which writes it into each pair's template");
    }
    SettingRules.chunking(t.string(Settings.ON_TOO_LONG), lateChunking(),
        SettingRules.Texts.of(kind == InputKind.TEXT,
            t.strings(Settings.TEXT_PAIR_COLUMNS).length > 0),
        t.intValue(Settings.MAX_TOKENS), t.intValue(Settings.CHUNK_OVERLAP),
        SettingRules.Naming.PARAMS);
    if (t.fromFolder() && t.folder().lateInteraction().isPresent()
        && (kind != InputKind.TEXT || t.strings(Settings.TEXT_PAIR_COLUMNS).length > 0)) {
      throw new IllegalArgumentException(t.folder().folder() + " is a PyLate ColBERT folder, "
          + "which reads single texts (textCol), each as one query or document (role): its "
          + "prefix token and a query's padding go in as the text is tokenized");
    }
    String[] pair = t.strings(Settings.TEXT_PAIR_COLUMNS);
    return new InputColumns(schema, t.string(Settings.ID_COLUMN), kind, sequenceCol(kind),
        t.string(Settings.TYPE_IDS_COLUMN), t.string(Settings.MASK_COLUMN),
        kind == InputKind.TEXT && pair.length > 0 ? pair[1] : "");
  }

  /**
   * The prompt put before every text: the prompt param when set ("" turns the folder's default
   * off), else promptName, else the folder's default_prompt_name; single texts only.
   */
  AutoChoices.Prompt prompt() {
    InputKind kind = kind();
    AutoChoices.PromptUse use = kind != InputKind.TEXT ? AutoChoices.PromptUse.NO_TEXT
        : t.strings(Settings.TEXT_PAIR_COLUMNS).length > 0 ? AutoChoices.PromptUse.TEXT_PAIRS
        : chunks() ? AutoChoices.PromptUse.TEXT_CHUNKS : AutoChoices.PromptUse.SINGLE_TEXTS;
    return AutoChoices.prompt(t.string(Settings.PROMPT), t.isSet(t.param(Settings.PROMPT)),
        t.string(Settings.PROMPT_NAME).trim(), query(), t.fromFolder() ? t.folder() : null, use,
        new String[] {Settings.PROMPT.key(), Settings.PROMPT_NAME.key()});
  }

  /** Whether the texts are queries (role = query), else documents. */
  boolean query() {
    return SettingRules.queries(t);
  }

  /** The source that checks rows and turns them into the encoder's input. */
  SequenceSource source(InputColumns columns, LoadedModel m, boolean spans) {
    return SequenceSource.of(columns, m, t.intValue(Settings.MAX_LENGTH),
        t.intValue(Settings.MAX_TOKENS), t.string(Settings.ON_TOO_LONG).equals("reject"),
        chunks() ? t.intValue(Settings.CHUNK_OVERLAP) : -1,
        new LateChunking.Asked(lateChunking(), t.intValue(Settings.CHUNK_TOKENS),
            t.intValue(Settings.CHUNK_OVERLAP)),
        columns.kind() == InputKind.TEXT ? prompt().text() : "", spans,
        t.string(Settings.INSTRUCTION), query(), heldPrompts());
  }

  /**
   * What texts may already begin with where the job puts something before them: the prompt and
   * the folder's other prompts before single texts, a reranker's template labels before the
   * query and the document of a pair; null where nothing goes before the texts.
   */
  HeldPrompts heldPrompts() {
    if (kind() != InputKind.TEXT || !t.fromFolder()) {
      return null;
    }
    ModelFolder folder = t.folder();
    OnAlreadyPrompted onHeld = ConfigName.parse(OnAlreadyPrompted.values(),
        t.string(Settings.ON_ALREADY_PROMPTED), Settings.ON_ALREADY_PROMPTED.param());
    List<PromptPrefixes.Prefix> text = new ArrayList<>();
    List<PromptPrefixes.Prefix> pair = new ArrayList<>();
    Reranker reranker = folder.reranker();
    if (t.strings(Settings.TEXT_PAIR_COLUMNS).length > 0) {
      if (reranker == Reranker.NONE) {
        return null;
      }
      String template = reranker.configName() + " template";
      for (int i = 0; i < reranker.queryLabels().size(); i++) {
        text.add(new PromptPrefixes.Prefix(template, reranker.queryLabels().get(i), i));
      }
      pair.add(new PromptPrefixes.Prefix(template, reranker.documentLabel(), 0));
    } else {
      AutoChoices.Prompt prompt = prompt();
      if (prompt.text().isEmpty()) {
        return null;
      }
      text.add(new PromptPrefixes.Prefix(prompt.name(), prompt.text(), 0));
      folder.prompts().byName().forEach((name, p) -> text.add(
          new PromptPrefixes.Prefix(name, p, 0)));
    }
    return new HeldPrompts(PromptPrefixes.of(text, folder.stripsTexts(),
        folder.lowercasesTexts()), PromptPrefixes.of(pair, folder.stripsTexts(),
        folder.lowercasesTexts()), onHeld);
  }

  /** Where late chunking ends its chunks' spans; NONE: texts are not late-chunked. */
  LateChunking.SpanRule lateChunking() {
    return ConfigName.parse(LateChunking.SpanRule.values(), t.string(Settings.LATE_CHUNKING),
        Settings.LATE_CHUNKING.param());
  }

  /** Whether a text may become several rows, each with {@code chunk}: windows or late chunks. */
  boolean chunkRows() {
    return chunks() || lateChunking() != LateChunking.SpanRule.NONE;
  }

  /** Whether texts longer than the limit become several windows (rows). */
  boolean chunks() {
    return t.string(Settings.ON_TOO_LONG).equals("chunk");
  }
}
