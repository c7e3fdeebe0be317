package io.corpus.encoder.config;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.text.LateChunking;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.Reranker;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules between settings, each written once for the job's file and for the ML
 * Transformer's params: a refusal names the settings as its reader calls them
 * ({@code input.late-chunking} or {@code lateChunking}) and is thrown as that reader's error.
 */
public final class SettingRules {
  private SettingRules() {}

  /**
   * How a reader names settings and refuses them: the job by their keys, with a
   * {@link SettingsException}; the Transformer by its params, with an
   * {@link IllegalArgumentException}.
   */
  public enum Naming {
    KEYS, PARAMS;

    String of(Setting<?> setting) {
      return this == KEYS ? setting.key() : setting.param();
    }

    RuntimeException refusal(String message) {
      return this == KEYS ? new SettingsException(message)
          : new IllegalArgumentException(message);
    }
  }

  /** What rows hold: single texts, text pairs, or token ids or vectors. */
  public enum Texts {
    SINGLE, PAIRS, NONE;

    /** What rows hold whose input is {@code text} (else ids or vectors), as {@code pairs}. */
    public static Texts of(boolean text, boolean pairs) {
      return !text ? NONE : pairs ? PAIRS : SINGLE;
    }

    String named() {
      return this == PAIRS ? "text pairs" : "token ids or token vectors";
    }
  }

  /**
   * Chunking's rules: windows ({@code on-too-long = chunk}) and late chunking cut single texts
   * only; late chunking reads a text whole, so it truncates nothing, and its windows'
   * {@code overlap} must leave each window a new position (checked where {@code maxTokens},
   * the resolved limit, is known: 0 when it is not yet); an overlap needs one of them. Throws
   * the first rule broken.
   */
  public static void chunking(String onTooLong, LateChunking.SpanRule late,
      Texts texts, int maxTokens, int overlap, Naming n) {
    String tooLong = n.of(Settings.ON_TOO_LONG);
    String lateChunking = n.of(Settings.LATE_CHUNKING);
    String textColumn = n.of(Settings.TEXT_COLUMN);
    boolean windows = onTooLong.equals("chunk");
    if (windows && texts != Texts.SINGLE) {
      throw n.refusal(tooLong + " = chunk cuts single texts (" + textColumn + ") into "
          + "windows; it does not apply to " + texts.named());
    }
    if (late != LateChunking.SpanRule.NONE) {
      if (texts != Texts.SINGLE) {
        throw n.refusal(lateChunking + " encodes single texts (" + textColumn + ") whole "
            + "and pools their chunks; it does not apply to " + texts.named());
      }
      if (!onTooLong.equals("truncate")) {
        throw n.refusal(lateChunking + " encodes every text whole, a long one in windows of "
            + n.of(Settings.MAX_TOKENS) + ": " + tooLong + " = " + onTooLong
            + " does not apply");
      }
      if (maxTokens > 0 && overlap >= maxTokens - 1) {
        throw n.refusal(n.of(Settings.CHUNK_OVERLAP) + " = " + overlap + " must be below "
            + (maxTokens - 1) + " with " + lateChunking + ": each window of "
            + n.of(Settings.MAX_TOKENS) + " = " + maxTokens + " repeats that many positions of "
            + "the one before and must bring new ones");
      }
    }
    if (overlap > 0 && !windows && late == LateChunking.SpanRule.NONE) {
      throw n.refusal(n.of(Settings.CHUNK_OVERLAP) + " goes with " + tooLong + " = chunk or "
          + lateChunking);
    }
  }

  /**
   * Whether the model is a folder ({@code model.path}), else a safetensors file of encoder
   * layers ({@code model.weights}): exactly one is set. Throws otherwise.
   */
  public static boolean fromFolder(SettingValues v) {
    Naming n = v.naming();
    boolean folder = !v.value(Settings.MODEL_PATH).isBlank();
    boolean file = !v.value(Settings.MODEL_WEIGHTS).isBlank();
    String both = n.of(Settings.MODEL_PATH) + " (a Hugging Face model folder) or "
        + n.of(Settings.MODEL_WEIGHTS) + " (a safetensors file of encoder layers)";
    if (folder == file) {
      throw n.refusal(folder ? "Set " + both + ", not both" : both + " must be set");
    }
    return folder;
  }

  /**
   * The kind of input the settings name, by the input's rules: exactly one of the token
   * vectors', the token ids' and the text's columns (text as one column or as a pair, not both);
   * a mask column goes with ids or vectors, which have padding; a type-ids column with ids.
   * Throws the first rule broken.
   */
  public static InputKind inputKind(SettingValues v) {
    Naming n = v.naming();
    boolean ids = !v.value(Settings.IDS_COLUMN).isBlank();
    boolean pairs = !v.value(Settings.TEXT_PAIR_COLUMNS).isEmpty();
    boolean single = !v.value(Settings.TEXT_COLUMN).isBlank();
    if (pairs && single) {
      throw n.refusal("Set " + n.of(Settings.TEXT_COLUMN) + " (single texts) or "
          + n.of(Settings.TEXT_PAIR_COLUMNS) + " (pairs), not both");
    }
    boolean text = single || pairs;
    boolean embeddings = v.given(Settings.EMBEDDINGS_COLUMN);
    if ((ids ? 1 : 0) + (text ? 1 : 0) + (embeddings ? 1 : 0) > 1) {
      List<String> set = new ArrayList<>();
      if (embeddings) {
        set.add(n.of(Settings.EMBEDDINGS_COLUMN));
      }
      if (ids) {
        set.add(n.of(Settings.IDS_COLUMN));
      }
      if (text) {
        set.add(n.of(pairs ? Settings.TEXT_PAIR_COLUMNS : Settings.TEXT_COLUMN));
      }
      throw n.refusal("Set exactly one of " + n.of(Settings.EMBEDDINGS_COLUMN)
          + " (token vectors), " + n.of(Settings.IDS_COLUMN) + " (token ids) and "
          + n.of(Settings.TEXT_COLUMN) + " (text); got " + String.join(", ", set));
    }
    if (!v.value(Settings.TYPE_IDS_COLUMN).isBlank() && !ids) {
      throw n.refusal(n.of(Settings.TYPE_IDS_COLUMN) + " goes with " + n.of(Settings.IDS_COLUMN)
          + " (text gets its type ids from the tokenizer)");
    }
    if (!v.value(Settings.MASK_COLUMN).isBlank() && text) {
      throw n.refusal(n.of(Settings.MASK_COLUMN) + " does not apply to "
          + n.of(Settings.TEXT_COLUMN) + ": text has no padding");
    }
    return text ? InputKind.TEXT : ids ? InputKind.IDS : InputKind.EMBEDDINGS;
  }

  /**
   * What the input needs of the model: token ids and text a model folder ({@code folder}; null
   * for a weights file), whose embedding layer reads them, and text its tokenizer.json. Throws
   * the first rule broken.
   */
  public static void inputModel(InputKind kind, ModelFolder folder, Naming n) {
    if (kind == InputKind.EMBEDDINGS) {
      return;
    }
    boolean text = kind == InputKind.TEXT;
    String column = n.of(text ? Settings.TEXT_COLUMN : Settings.IDS_COLUMN);
    if (folder == null) {
      throw n.refusal(column + " needs " + n.of(Settings.MODEL_PATH) + ", a Hugging Face model "
          + "folder: its embedding layer" + (text ? " and tokenizer.json turn text"
              : " turns token ids") + " into the encoder's input");
    }
    if (text && folder.tokenizer().isEmpty()) {
      throw n.refusal(column + " needs the model folder's tokenizer.json, which is missing "
          + "from " + folder.folder());
    }
  }

  /**
   * The limits' rules: a longest length bounds token vectors ({@code input.max-length}), a most
   * tokens token ids and text ({@code input.max-tokens}); a chunk's tokens go with late
   * chunking. Throws the first rule broken.
   */
  public static void limits(InputKind kind, SettingValues v) {
    Naming n = v.naming();
    String maxLength = n.of(Settings.MAX_LENGTH);
    String maxTokens = n.of(Settings.MAX_TOKENS);
    if (kind != InputKind.EMBEDDINGS && v.value(Settings.MAX_LENGTH) > 0) {
      throw n.refusal(maxLength + " applies to " + n.of(Settings.EMBEDDINGS_COLUMN)
          + "; for token ids and text set " + maxTokens);
    }
    if (kind == InputKind.EMBEDDINGS && v.value(Settings.MAX_TOKENS) > 0) {
      throw n.refusal(maxTokens + " applies to token ids and text; for "
          + n.of(Settings.EMBEDDINGS_COLUMN) + " set " + maxLength);
    }
    if (v.given(Settings.CHUNK_TOKENS) && ConfigName.parse(LateChunking.SpanRule.values(),
        v.value(Settings.LATE_CHUNKING), n.of(Settings.LATE_CHUNKING))
        == LateChunking.SpanRule.NONE) {
      throw n.refusal(n.of(Settings.CHUNK_TOKENS) + " goes with " + n.of(Settings.LATE_CHUNKING)
          + " (tokens or sentences)");
    }
  }

  /**
   * The attention maps' rows are kept by their ids ({@code output.attention.ids}) or by a
   * sample ({@code output.attention.sample}), not both. Throws when both are set.
   */
  public static void keptMaps(SettingValues v) {
    Naming n = v.naming();
    List<String> ids = v.value(Settings.ATTENTION_IDS);
    double sample = v.value(Settings.ATTENTION_SAMPLE);
    if (!ids.isEmpty() && sample < 1) {
      throw n.refusal("Set " + n.of(Settings.ATTENTION_IDS) + " or "
          + n.of(Settings.ATTENTION_SAMPLE) + ", not both (ids " + ids + ", sample " + sample
          + ")");
    }
  }

  /** Whether the texts are queries ({@code input.role = query}), else documents. */
  public static boolean queries(SettingValues v) {
    return v.value(Settings.ROLE).equals("query");
  }

  /** The template a reranker folder's pairs go into ({@code model.reranker}); NONE: none. */
  public static Reranker reranker(SettingValues v) {
    return ConfigName.parse(Reranker.values(), v.value(Settings.RERANKER),
        v.naming().of(Settings.RERANKER));
  }

  /**
   * How the pooled vector is written ({@code output.quantize}), by quantization's rules: it
   * quantizes the pooled vector, so it needs one ({@code pooling} writes it); only int8 and
   * uint8 take ranges. Throws the first rule broken.
   */
  public static Quantization quantization(SettingValues v, Pooling pooling) {
    Naming n = v.naming();
    String name = n.of(Settings.QUANTIZE);
    Quantization quantize = ConfigName.parse(Quantization.values(), v.value(Settings.QUANTIZE),
        name);
    if (quantize != Quantization.NONE && !pooling.dense()) {
      throw n.refusal(name + " = " + quantize.configName() + " quantizes the pooled vector, "
          + "and " + n.of(Settings.POOLING) + " = " + pooling.configName() + " writes none");
    }
    if (!quantize.ranged() && !v.value(Settings.QUANTIZE_RANGES).isEmpty()) {
      throw n.refusal(n.of(Settings.QUANTIZE_RANGES) + " gives int8 and uint8 their ranges; "
          + name + " = " + quantize.configName() + " takes none");
    }
    return quantize;
  }

  /**
   * The pooled vector's rules: head importances need one (a pooling other than none or splade),
   * and SPLADE's sparse vector is not L2-normalized. Throws the first rule broken.
   */
  public static void pooledVector(Pooling pooling, boolean normalize, boolean importance,
      Naming n) {
    String poolingIs = n.of(Settings.POOLING) + " = " + pooling.configName();
    if (pooling == Pooling.SPLADE && normalize) {
      throw n.refusal(poolingIs + " writes a sparse vector, which is not L2-normalized: set "
          + n.of(Settings.NORMALIZE) + " = false");
    }
    if (importance && !pooling.dense()) {
      // the Transformer asks for importances by naming their column
      throw n.refusal((n == Naming.KEYS ? Settings.ATTENTION_IMPORTANCE.key() : "importanceCol")
          + " measures each head's effect on the pooled vector, and " + poolingIs
          + " writes none");
    }
  }
}
