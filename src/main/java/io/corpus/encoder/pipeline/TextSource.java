package io.corpus.encoder.pipeline;

import io.corpus.encoder.common.Sha256;
import io.corpus.encoder.config.JobSettings.OnAlreadyPrompted;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TokenEmbeddings;
import io.corpus.encoder.text.EdgeWhitespace;
import io.corpus.encoder.text.IdleTokenizers;
import io.corpus.encoder.text.LateChunking;
import io.corpus.encoder.text.Lowercase;
import io.corpus.encoder.text.PromptPrefixes;
import io.corpus.encoder.text.StaticReading;
import io.corpus.encoder.text.TextTokenizer;
import io.corpus.encoder.weights.LateInteraction;
import io.corpus.encoder.weights.Reranker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Text as the input ({@code string}): tokenized in the task with the model folder's
 * {@code tokenizer.json} (its bytes travel with the task; Spark ships a stage's closure once per
 * executor), special tokens added, cut to {@code maxTokens} as sentence-transformers cuts (the
 * closing {@code [SEP]} stays) or rejected when longer; then the embedding layer. For a
 * sentence-transformers folder every text (the prompt put before it first) and pair text loses
 * its edge whitespace first, as Python's {@code str.strip()} removes it
 * ({@link EdgeWhitespace}); offsets written (windows, entities) stay offsets into the text as
 * given; a folder whose {@code sentence_bert_config.json} says {@code do_lower_case} lowers them
 * next, as Python's {@code str.lower()} ({@link Lowercase}). A PyLate ColBERT folder's texts
 * are read as PyLate reads a query or a document: its prefix token inserted after the first
 * token, an expanded query padded with the mask token, the padding attended to or not
 * ({@link LateInteraction.Input}).
 */
final class TextSource extends EmbeddedSource {
  /** The most token-state floats one late-chunked text may hold (1 GiB). */
  static final long MOST_LATE_STATES = 1L << 28;

  private final byte[] tokenizerJson;
  private final int chunkOverlap;   // -1: texts are cut or rejected, not chunked
  private final String prompt;      // put before every text; "" = none
  private final boolean spans;      // keep the text and each token's span in it, for entities
  private final Reranker reranker;  // NONE, or the template a pair is written into, as one text
  private final String instruction; // the reranker's instruction; "" = its card's
  private final boolean strip;      // texts lose their edge whitespace, as sentence-transformers'
  private final boolean lowercase;  // then are lower-cased (do_lower_case)
  private final LateInteraction.Input late;   // a PyLate folder's query or document; or null
  private final HeldPrompts held;   // what a text may already begin with; null: nothing is put
  private final StaticReading lookup;   // a static embedding's reading; null: a transformer's
  private final String suffix;      // appended to every text as text (NV-Embed's eos); "" = none
  private final LateChunking lateChunking;  // texts encoded whole, pooled by chunk; or null
  // positions at the start that pooling leaves out, by the prompt before the text (empty: none)
  private final Map<String, Integer> unpooled;
  private final String idleKey;     // the file's SHA-256 and how it reads, for IdleTokenizers

  /**
   * Loads the tokenizer once, here on the driver, so that a tokenizer.json the library cannot
   * read fails the job before any task, naming {@code where} it comes from. {@code held}: what
   * a text may already begin with (null where nothing is put before the texts);
   * {@code poolsPrompt}: whether pooling takes the prompt's tokens in (else it starts after).
   */
  TextSource(InputColumns columns, byte[] tokenizerJson, String where, int maxTokens,
      boolean rejectTooLong, int chunkOverlap, String prompt, boolean spans, boolean strip,
      boolean lowercase, double layerNormEps, int vocabularySize, Reranker reranker,
      String instruction, LateInteraction.Input late, HeldPrompts held, boolean poolsPrompt,
      StaticReading lookup, String suffix, LateChunking lateChunking) {
    super(columns, late == null ? maxTokens : late.tokenizerLimit(), rejectTooLong,
        layerNormEps);
    this.late = late;
    this.lowercase = lowercase;
    this.tokenizerJson = tokenizerJson;
    this.chunkOverlap = chunkOverlap;
    this.prompt = prompt;
    this.spans = spans;
    this.strip = strip;
    this.reranker = reranker;
    this.instruction = instruction;
    this.held = held;
    this.lookup = lookup;
    this.suffix = suffix;
    this.lateChunking = lateChunking;
    if (lateChunking != null && (lookup != null || late != null || spans
        || columns.hasPair() || !suffix.isEmpty())) {
      throw new IllegalArgumentException("Late chunking pools each chunk of a single text from "
          + "a transformer's token states: " + (lookup != null ? "a folder of static "
              + "embeddings has none" : late != null ? "a PyLate ColBERT folder writes token "
              + "vectors, not a pooled one" : spans ? "entities do not apply"
              : !suffix.isEmpty() ? "a folder that appends text to each has its own pooling"
              : "text pairs do not apply"));
    }
    if (lookup != null && (spans || chunkOverlap >= 0 || columns.hasPair())) {
      throw new IllegalArgumentException("A folder of static embeddings gives one vector per "
          + "text, the mean of its tokens' and with no token limit: text pairs, windows "
          + "(on-too-long = chunk) and entities do not apply");
    }
    if (spans && !prompt.isEmpty()) {
      throw new IllegalArgumentException("Entities are found in the text as given: a prompt ('"
          + prompt + "') would move every offset; set no prompt");
    }
    if (late != null && (spans || chunkOverlap >= 0 || columns.hasPair())) {
      throw new IllegalArgumentException("A PyLate ColBERT folder reads single texts, each as "
          + "one query or document: text pairs, windows (on-too-long = chunk) and entities do "
          + "not apply");
    }
    if (late != null && Math.max(late.prefixId(), late.padId()) >= vocabularySize) {
      throw new IllegalArgumentException("The ColBERT prefix '" + late.prefix() + "' (id "
          + late.prefixId() + ") or padding '" + late.pad() + "' (id " + late.padId() + ") has "
          + "no row in the model's " + vocabularySize + " word embeddings");
    }
    TextTokenizer.check(tokenizerJson, where, this.maxTokens, chunkOverlap, vocabularySize);
    this.unpooled = poolsPrompt || prompt.isEmpty() ? Map.of() : promptPositions();
    this.idleKey = Sha256.hex(tokenizerJson) + " " + (lookup != null ? "without special tokens"
        : lateChunking != null ? "whole" : "cut at " + this.maxTokens + ", overlap "
        + chunkOverlap + ", spans " + spans);
  }

  /** How a PyLate ColBERT folder reads these texts; null for any other folder. */
  LateInteraction.Input late() {
    return late;
  }

  /**
   * The positions each prompt takes at the start of a sequence: its tokens with the leading
   * special token, as sentence-transformers counts them (the prompt tokenized alone, stripped as
   * texts are, less one); for the prompt put before the texts and, with skip-prompt, each one a
   * text may hold instead. Tokenizes on the driver, so only a folder whose pooling leaves the
   * prompt out asks.
   */
  private Map<String, Integer> promptPositions() {
    Map<String, Integer> positions = new HashMap<>();
    try (TextTokenizer tokenizer = TextTokenizer.fromJson(tokenizerJson, maxTokens)) {
      List<String> prompts = new ArrayList<>(List.of(prompt));
      if (held != null && held.onHeld() == OnAlreadyPrompted.SKIP_PROMPT) {
        held.text().prefixes().forEach(p -> prompts.add(p.text()));
      }
      for (String p : prompts) {
        positions.put(p, tokenizer.encode(lowered(edges(p).text()).text()).ids().length - 1);
      }
    }
    return positions;
  }

  @Override
  Reader open(EncoderModel model) {
    TokenEmbeddings embeddings = embeddingLayer(model);
    TextTokenizer tokenizer = IdleTokenizers.take(idleKey, () -> lookup != null
        ? TextTokenizer.withoutSpecialTokens(tokenizerJson)
        : lateChunking != null ? TextTokenizer.whole(tokenizerJson)
        : TextTokenizer.fromJson(tokenizerJson, maxTokens, chunkOverlap, spans));
    return new Reader() {
      @Override
      public SequenceRead read(InternalRow row, TokenBatch batch) {
        return TextSource.this.read(row, batch, tokenizer, embeddings);
      }

      @Override
      public void close() {
        IdleTokenizers.give(idleKey, tokenizer);
      }
    };
  }

  private SequenceRead read(InternalRow row, TokenBatch batch, TextTokenizer tokenizer,
      TokenEmbeddings embeddings) {
    RejectRule.Rejection badRow = checkRow(row);
    if (badRow != null) {
      return badRow;
    }
    RejectRule.Rejection bad = checkText(row, columns.sequenceOrdinal(),
        columns.hasPair() ? "first text" : "text");
    if (bad == null && columns.hasPair()) {
      bad = checkText(row, columns.pairOrdinal(), "second text");
    }
    if (bad != null) {
      return bad;
    }
    String given = row.getUTF8String(columns.sequenceOrdinal()).toString();
    String pairGiven = columns.hasPair() ? row.getUTF8String(columns.pairOrdinal()).toString()
        : null;
    Before before = before(row, given, pairGiven);
    SequenceRead.Prompt prompted = before.prompt();
    EdgeWhitespace.Stripped stripped = edges(before.text() + given);
    Lowercase.Lowered lowered = lowered(stripped.text());
    String text = lowered.text() + suffix;
    int shift = stripped.leadingCodePoints();   // no prompt where offsets are written
    int[] codePoints = spans ? given.codePoints().toArray() : null;
    if (chunkOverlap >= 0) {
      return chunks(tokenizer.windows(text), embeddings, codePoints, shift, lowered);
    }
    if (lateChunking != null) {
      return lateChunked(tokenizer.encode(text), embeddings, lowered,
          shift - before.text().codePointCount(0, before.text().length()),
          prompted.unpooled());
    }
    if (lookup != null) {
      return lookedUp(text, batch, tokenizer, embeddings, prompted);
    }
    String pair = pairGiven == null ? null : lowered(edges(pairGiven).text()).text();
    TextTokenizer.Tokens tokens = pair == null ? tokenizer.encode(text)
        : reranker.apart() ? tokenizer.encode(reranker.query(instruction, text,
            before.queryLabels()), reranker.document(pair, before.documentLabels()))
        : reranker != Reranker.NONE ? tokenizer.encode(reranker.body(instruction, text,
            before.queryLabels(), pair, before.documentLabels()))
        : tokenizer.encode(text, pair);
    if (tokens.truncated() && rejectTooLong) {
      return RejectRule.TOO_LONG.because("text has more than the " + maxTokens + " tokens "
          + "allowed by max-tokens (on-too-long = reject)");
    }
    if (tokens.ids().length == 0) {
      return RejectRule.NO_TOKEN.because("the tokenizer gives no token for "
          + (columns.hasPair() ? "this pair" : "this text") + " (it adds none of its own)");
    }
    RejectRule.Rejection outside = outsideTheModel(tokens, embeddings);
    if (outside != null) {
      return outside;
    }
    if (late != null) {
      return lateInteraction(tokens, batch, embeddings, prompted);
    }
    int[] ids = tokens.ids();
    embeddings.append(ids, tokens.typeIds(), batch);
    return new SequenceRead.Accepted(ids.length, ids, tokens.tokens(),
        columns.hasPair() ? tokens.typeIds() : null, tokens.truncated(), null,
        spans ? new SequenceRead.TokenText(codePoints, tokens.spans().unlowered(lowered)
            .shifted(shift)) : null, prompted);
  }

  /**
   * A static embedding's reading of the text ({@link StaticReading}): no special token, a text
   * with no token kept (its vector is the zero vector, as an empty bag's mean is).
   */
  private SequenceRead lookedUp(String text, TokenBatch batch, TextTokenizer tokenizer,
      TokenEmbeddings embeddings, SequenceRead.Prompt prompted) {
    String cut = lookup.cut(text);
    TextTokenizer.Tokens tokens = lookup.kept(tokenizer.encode(cut), cut.length() < text.length());
    RejectRule.Rejection outside = outsideTheModel(tokens, embeddings);
    if (outside != null) {
      return outside;
    }
    embeddings.append(tokens.ids(), batch);
    return new SequenceRead.Accepted(tokens.ids().length, tokens.ids(), tokens.tokens(), null,
        tokens.truncated(), null, null, prompted);
  }

  /**
   * What goes before a row's texts.
   *
   * @param text the prompt put before the (first) text: this source's, or "" where the text
   *     holds one already and skip-prompt leaves it as given
   * @param queryLabels how many of a reranker template's labels go before the query
   *     ({@link Reranker#EVERY_LABEL}: all)
   * @param documentLabels and before the document
   * @param prompt what the output makes of it
   */
  private record Before(String text, int queryLabels, int documentLabels,
      SequenceRead.Prompt prompt) {}

  /**
   * The prompt and template labels for a row whose texts are {@code given} and
   * {@code pairGiven} (null for a single text), as {@code input.on-already-prompted} says for
   * texts that hold one already; refuses the row under fail.
   */
  private Before before(InternalRow row, String given, String pairGiven) {
    PromptPrefixes.Prefix textHeld = held == null ? null : held.text().heldBy(given);
    PromptPrefixes.Prefix pairHeld = held == null || pairGiven == null ? null
        : held.pair().heldBy(pairGiven);
    boolean alreadyHeld = textHeld != null || pairHeld != null;
    if (alreadyHeld && held.onHeld() == OnAlreadyPrompted.FAIL) {
      throw new AlreadyPromptedException(IdText.of(row, columns.idOrdinal(), columns.idType()),
          textHeld != null ? textHeld : pairHeld, held);
    }
    boolean skip = alreadyHeld && held.onHeld() == OnAlreadyPrompted.SKIP_PROMPT;
    String text = skip && textHeld != null ? "" : prompt;
    // the prompt pooling leaves out: the one put there, else the one the text holds
    int unpooledPositions = unpooled.getOrDefault(
        text.isEmpty() && textHeld != null ? textHeld.text() : text, 0);
    return new Before(text, skip && textHeld != null ? textHeld.part() : Reranker.EVERY_LABEL,
        skip && pairHeld != null ? 0 : Reranker.EVERY_LABEL,
        new SequenceRead.Prompt(unpooledPositions, alreadyHeld));
  }

  /** The text lower-cased when the folder says do_lower_case, else as it is. */
  private Lowercase.Lowered lowered(String text) {
    return lowercase ? Lowercase.of(text) : new Lowercase.Lowered(text, null);
  }

  /**
   * PyLate's tokenize: the prefix id inserted after the first token (type 0), an expanded query
   * padded with the mask token to its length, the padding attended to only if the folder says.
   */
  private SequenceRead lateInteraction(TextTokenizer.Tokens tokens, TokenBatch batch,
      TokenEmbeddings embeddings, SequenceRead.Prompt prompted) {
    int[] given = tokens.ids();
    int real = given.length + (late.prefixId() >= 0 ? 1 : 0);
    int total = late.expand() ? Math.max(real, late.length()) : real;
    int[] ids = new int[total];
    int[] typeIds = new int[total];
    String[] pieces = new String[total];
    int j = 0;
    for (int t = 0; t < given.length; t++, j++) {
      ids[j] = given[t];
      typeIds[j] = tokens.typeIds()[t];
      pieces[j] = tokens.tokens()[t];
      if (t == 0 && late.prefixId() >= 0) {
        j++;
        ids[j] = late.prefixId();
        pieces[j] = late.prefix();
      }
    }
    for (; j < total; j++) {
      ids[j] = late.padId();
      pieces[j] = late.pad();
    }
    int b = embeddings.append(ids, typeIds, batch);
    if (!late.attend() && real < total) {
      batch.attendToFirst(b, real);
    }
    return new SequenceRead.Accepted(total, ids, pieces, null, tokens.truncated(), null, null,
        prompted);
  }

  /** The text as the tokenizer gets it: stripped for a sentence-transformers folder. */
  private EdgeWhitespace.Stripped edges(String text) {
    return strip ? EdgeWhitespace.strip(text) : new EdgeWhitespace.Stripped(text, 0);
  }

  /**
   * Every window of a text, each its own sequence, for the task to append as its batches have
   * room; refused whole if one cannot be encoded.
   */
  private SequenceRead chunks(List<TextTokenizer.Window> windows, TokenEmbeddings embeddings,
      int[] codePoints, int shift, Lowercase.Lowered lowered) {
    if (windows.size() == 1 && windows.get(0).tokens().ids().length == 0) {
      return noToken();
    }
    for (TextTokenizer.Window window : windows) {
      RejectRule.Rejection outside = outsideTheModel(window.tokens(), embeddings);
      if (outside != null) {
        return outside;
      }
    }
    List<SequenceRead.Accepted> sequences = new ArrayList<>();
    for (int i = 0; i < windows.size(); i++) {
      TextTokenizer.Window window = windows.get(i);
      int[] ids = window.tokens().ids();
      sequences.add(new SequenceRead.Accepted(ids.length, ids, window.tokens().tokens(), null,
          false, new SequenceRead.Chunk(i, lowered.given(window.start()) + shift,
              lowered.given(window.end()) + shift, windows.size()),
          spans ? new SequenceRead.TokenText(codePoints, window.tokens().spans()
              .unlowered(lowered).shifted(shift)) : null, SequenceRead.Prompt.NONE));
    }
    return new SequenceRead.Chunks(sequences, (i, batch) -> embeddings.append(
        windows.get(i).tokens().ids(), windows.get(i).tokens().typeIds(), batch), null);
  }

  /**
   * A text encoded whole and pooled by chunk ({@link LateChunking}): its windows for the task to
   * append, and its chunks' spans with their offsets into the text given.
   *
   * @param tokens the text's tokens (a prompt's first), uncut, with their spans in
   *     {@code lowered}
   * @param shift what to add to a position of the text before it was lowered to have it in the
   *     text given (negative by the prompt's length)
   * @param unpooled positions at the start that pooling leaves out
   */
  private SequenceRead lateChunked(TextTokenizer.Tokens tokens, TokenEmbeddings embeddings,
      Lowercase.Lowered lowered, int shift, int unpooled) {
    if (tokens.ids().length == 0) {
      return noToken();
    }
    RejectRule.Rejection outside = outsideTheModel(tokens, embeddings);
    if (outside != null) {
      return outside;
    }
    int n = tokens.ids().length;
    long states = (long) n * embeddings.weights().width();
    if (states > MOST_LATE_STATES) {
      return RejectRule.TOO_LONG.because("late chunking holds a text's token states until its "
          + "last window is encoded: " + n + " tokens × " + embeddings.weights().width()
          + " floats, more than the " + (MOST_LATE_STATES >> 18) + " MiB a text may take; cut "
          + "it, or use on-too-long = chunk");
    }
    TextTokenizer.Spans spans = tokens.spans();
    int textFrom = 0;   // past the leading special tokens and the prompt's tokens
    while (textFrom < n && (spans.special()[textFrom]
        || lowered.given(spans.starts()[textFrom]) + shift < 0)) {
      textFrom++;
    }
    LateChunking.Plan plan = lateChunking.plan(spans, textFrom, unpooled, lowered.text());
    int[] starts = new int[plan.spans().size()];
    int[] ends = new int[starts.length];
    for (int i = 0; i < starts.length; i++) {
      LateChunking.Span span = plan.spans().get(i);
      if (span.textTo() > span.textFrom()) {
        starts[i] = lowered.given(spans.starts()[span.textFrom()]) + shift;
        ends[i] = lowered.given(spans.ends()[span.textTo() - 1]) + shift;
      }
    }
    LateDocument document = new LateDocument(tokens.ids(), tokens.tokens(), plan, starts, ends);
    List<SequenceRead.Accepted> windows = document.windows();
    return new SequenceRead.Chunks(windows,
        (k, batch) -> embeddings.append(windows.get(k).ids(), batch), document);
  }

  /** A single text of no token, whose tokenizer adds none of its own. */
  private static RejectRule.Rejection noToken() {
    return RejectRule.NO_TOKEN.because("the tokenizer gives no token for this text (it adds "
        + "none of its own)");
  }

  /** A token id or type id that the embedding layer has no row for, or null. */
  private static RejectRule.Rejection outsideTheModel(TextTokenizer.Tokens tokens,
      TokenEmbeddings embeddings) {
    int[] ids = tokens.ids();
    int t = embeddings.firstIdOutside(ids);
    if (t >= 0) {
      return RejectRule.BAD_TOKEN_ID.because("the tokenizer gave token " + t + " '"
          + tokens.tokens()[t] + "' id " + ids[t] + ", outside the model's vocabulary 0.."
          + (embeddings.weights().vocabularySize() - 1));
    }
    t = embeddings.firstTypeIdOutside(tokens.typeIds());
    if (t >= 0) {
      return RejectRule.BAD_TYPE_ID.because("the tokenizer gave token " + t + " type id "
          + tokens.typeIds()[t] + ", outside 0.." + (embeddings.weights().tokenTypes() - 1));
    }
    return null;
  }

  /** A null or a text that is not UTF-8, named as {@code what}; null when the text is fine. */
  private static RejectRule.Rejection checkText(InternalRow row, int ordinal, String what) {
    if (row.isNullAt(ordinal)) {
      return RejectRule.NULL_TEXT.because(what + " is null");
    }
    UTF8String text = row.getUTF8String(ordinal);
    if (!text.isValid()) {
      return RejectRule.INVALID_UTF8.because(what + " is not valid UTF-8: "
          + InvalidUtf8.badByte(text.getBytes()));
    }
    return null;
  }
}
