package io.corpus.encoder.model;

import io.corpus.encoder.kernel.ComputeThreads;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.kernel.RmsNorm;
import io.corpus.encoder.kernel.RowBlocks;
import io.corpus.encoder.kernel.Vectors;
import java.util.HashMap;
import java.util.Map;

/**
 * The fast forward pass: a batch's tokens stacked so each projection and the feed-forward is one
 * large matrix product; attention per sequence and head on strided views of the fused QKV buffer.
 * Layers may differ in how they attend ({@link ModelSettings#layer}: a window, rotary positions)
 * and in their weights' form (a gated feed-forward, no norm before attention).
 *
 * <p>The products go a block of rows at a time ({@link RowBlocks}) and attention a
 * sequence or a long sequence's (head, query tile) at a time, spread over the cores the task
 * may use ({@link ComputeThreads}); the blocks and tiles are cut the same way whatever the
 * number of threads, so the result is the same bit for bit on one thread or many.
 *
 * <p>Not thread-safe: it owns its work buffers, reused across batches. Use one per task.
 */
public final class Encoder {
  /** Longest sequence attended in one piece when its maps are not wanted; longer ones tile. */
  static final int ATTENTION_TILE = 256;

  private final ModelSettings settings;
  private final Architecture architecture;   // settings' own
  private final EncoderWeights weights;
  private final int width;       // E
  private final int heads;       // H
  private final int kvHeads;     // Hkv
  private final int headWidth;   // D
  private final int inner;       // H·D, the context's width (E for most encoders)
  private final int ffnWidth;    // F
  private final Shapes shapes;
  private final ComputeThreads.Task threads;
  private final BatchAttention sequences;    // the attention of a batch's sequences
  private final HeadAttention head;          // the caller's lane's: offsets into the fused qkv
  private final float[][] laneHidden;        // (lanes): lane ≥ 1's feed-forward blocks
  private final float[][] laneGate;
  private final Experts.Scratch[] laneExperts;  // (lanes): each lane's routing buffers
  private final Rotary[] rotary;  // (L): the rotary tables of each layer that rotates, by form
  private final ScoreTerms terms;  // the score bias or DeBERTa's position terms; or none
  private final float[][] outputProjections;  // (L): W_O as floats, made when norms are asked

  private int capacity;          // rows the buffers below hold
  private float[] qkv = new float[0];       // (N, (H + 2·Hkv)·D): q, k, v heads
  private float[] context = new float[0];   // (N, H·D), heads concatenated
  private float[] scratch = new float[0];   // (N, E), residual sums and normalized inputs
  private float[] sublayer = new float[0];  // (N, E), a sublayer's output before its post norm
  private final float[] zeros;              // (E)
  private float[] hidden = new float[0];    // (min(N, ffnBlock), F)
  private float[] gate = new float[0];      // (min(N, ffnBlock), F) of a gated feed-forward

  /** An encoder that computes on its caller's thread only. */
  public Encoder(ModelSettings settings, EncoderWeights weights) {
    this(settings, weights, ComputeThreads.SERIAL);
  }

  /** An encoder whose products and attention spread over the cores {@code threads} may use. */
  public Encoder(ModelSettings settings, EncoderWeights weights, ComputeThreads.Task threads) {
    this(settings, weights, ATTENTION_TILE, threads);
  }

  /** With another attention tile: tests use tiny ones to exercise tiling on short sequences. */
  Encoder(ModelSettings settings, EncoderWeights weights, int attentionTile) {
    this(settings, weights, attentionTile, ComputeThreads.SERIAL);
  }

  /** With another attention tile, on the cores {@code threads} may use. */
  Encoder(ModelSettings settings, EncoderWeights weights, int attentionTile,
      ComputeThreads.Task threads) {
    this.settings = settings;
    this.architecture = settings.architecture();
    this.threads = threads;
    this.weights = weights;
    this.width = weights.width();
    this.heads = settings.heads();
    this.kvHeads = settings.kvHeads();
    this.headWidth = settings.headWidth(width);
    this.inner = heads * headWidth;
    this.ffnWidth = weights.ffnWidth();
    this.shapes = Shapes.of(settings, weights);
    this.terms = architecture.positionTerms() instanceof ScoreBias bias
        ? new RelativeBias(bias, weights.scoreBiasTable(), heads)
        : architecture.positionTerms() instanceof DisentangledPositions form
        ? new DisentangledBias(form, shapes.fused(), settings.scoreScale(headWidth))
        : ScoreTerms.NONE;
    this.laneHidden = new float[threads.lanes()][];
    this.laneGate = new float[threads.lanes()][];
    this.laneExperts = new Experts.Scratch[threads.lanes()];
    this.sequences = new BatchAttention(heads, headWidth, threads, terms,
        () -> new HeadAttention(heads, kvHeads, headWidth, settings.scoreScale(headWidth),
            attentionTile, terms), bfloat16Tiles(weights));
    this.head = sequences.head();
    this.zeros = new float[width];
    checkFits(architecture, weights, shapes);
    this.outputProjections = new float[weights.layerCount()][];
    this.rotary = new Rotary[weights.layerCount()];
    Map<RotaryPositions.Rotated, Rotary> byForm = new HashMap<>();
    for (int l = 0; l < rotary.length; l++) {
      if (settings.layer(l).rotary() instanceof RotaryPositions.Rotated form) {
        rotary[l] = byForm.computeIfAbsent(form, f -> new Rotary(headWidth, f));
      }
    }
  }

  /**
   * Whether long sequences' attention tiles multiply in bfloat16: where the layers' products
   * do ({@code model.precision = bfloat16}, oneDNN loaded).
   */
  private static boolean bfloat16Tiles(EncoderWeights weights) {
    return weights.precision() == Precision.BFLOAT16;
  }

  /**
   * Whether {@code weights} are what {@code settings} compute with: each layer's projections as
   * the heads' shape needs them, its norms and feed-forward of the spec's form, the relative
   * tables its position terms read; else an {@link IllegalArgumentException} naming the layer.
   * The loader calls it once on the driver, before any task; every encoder checks again.
   */
  public static void checkFits(ModelSettings settings, EncoderWeights weights) {
    checkFits(settings.architecture(), weights, Shapes.of(settings, weights));
  }

  /** {@link #checkFits(ModelSettings, EncoderWeights)} with the shapes already worked out. */
  private static void checkFits(Architecture architecture, EncoderWeights weights,
      Shapes shapes) {
    int width = shapes.width();
    int headWidth = shapes.headWidth();
    int inner = shapes.inner();
    for (int l = 0; l < weights.layerCount(); l++) {
      LayerWeights w = weights.layers().get(l);
      if (w.inProjWeight().rows() != shapes.qkvWidth() || w.inProjWeight().cols() != width
          || w.outProjWeight().rows() != width || w.outProjWeight().cols() != shapes.inner()
          || (w.queryNorm() instanceof Norm.Scale q && w.keyNorm() instanceof Norm.Scale k
          && (q.scale().length != headWidth || k.scale().length != headWidth))) {
        throw new IllegalArgumentException("layer " + l + "'s projections do not fit "
            + shapes.heads() + " heads and " + shapes.kvHeads() + " KV heads of " + headWidth
            + " values in a width of " + width);
      }
      boolean sandwich = architecture.norms().placement() == Norms.Placement.SANDWICH;
      if (w.normsOutputs() != sandwich
          || w.feedForwardOutputNorm().present() != w.normsOutputs()) {
        throw new IllegalArgumentException("layer " + l + (sandwich ? " lacks the norms"
            : " has norms") + " of its attention's and feed-forward's outputs, which "
            + architecture.norms().placement() + " norms " + (sandwich ? "need" : "do not have"));
      }
      FeedForward ffn = w.feedForward();
      boolean experts = architecture.experts().at(l);
      if (experts != ffn instanceof Experts
          || (!experts && architecture.gated() != ffn instanceof FeedForward.Gated)) {
        throw new IllegalArgumentException("layer " + l + "'s feed-forward is "
            + ffn.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + " where the "
            + "model's are " + (experts ? "experts" : architecture.gated() ? "gated" : "plain"));
      }
      LayerWeights.RelativePositions relative = w.relative();
      if (architecture.positionTerms() instanceof DisentangledPositions form
          && (!table(relative.keys(), form.contentToPosition(), 2 * form.span() * inner)
          || !table(relative.queries(), form.positionToContent(), 2 * form.span() * inner))) {
        throw new IllegalArgumentException("layer " + l + " lacks the (" + 2 * form.span()
            + ", " + inner + ") relative key and query tables its position terms read");
      }
    }
  }

  /** Whether a table is there exactly when it is {@code wanted}, of {@code floats} values. */
  private static boolean table(float[] values, boolean wanted, int floats) {
    return values.length == (wanted ? floats : 0);
  }

  public ModelSettings settings() {
    return settings;
  }

  public EncoderWeights weights() {
    return weights;
  }

  /** Runs every layer over the batch, replacing its tokens by the last layer's output. */
  public void forward(TokenBatch batch) {
    forward(batch, AttentionSink.NONE);
  }

  /** As {@link #forward(TokenBatch)}, attention maps going to {@code sink} where it wants. */
  public void forward(TokenBatch batch, AttentionSink sink) {
    layers(batch, sink, 0, weights.layerCount(), HeadAblation.NONE);
  }

  /**
   * Runs layers [from, to) over the batch, whose tokens are the states entering layer
   * {@code from} (for 0, the embeddings, to which positions are added first), replacing them by
   * the states leaving layer {@code to - 1}; after the last layer, its final norm.
   * {@code ablation} removes a head of each sequence in one layer ({@link HeadAblation#NONE}:
   * none).
   */
  public void layers(TokenBatch batch, AttentionSink sink, int from, int to,
      HeadAblation ablation) {
    int n = batch.tokenCount();
    ensureCapacity(n);
    float[] x = batch.tokens();                                   // (N, E)
    if (from == 0) {
      addPositions(batch, x);
    }
    for (int l = from; l < to; l++) {
      LayerWeights w = weights.layers().get(l);
      AttentionSink layerSink = sink.wantsLayer(l) ? sink : AttentionSink.NONE;
      if (architecture.norms().placement().first()) {
        // x = x + MHA(LN1(x)); x = x + FFN(LN2(x)); a layer without LN1 attends to x itself
        float[] attended = x;
        if (w.attentionNorm().present()) {
          norm(x, scratch, n, w.attentionNorm());
          attended = scratch;
        }
        attention(batch, attended, w, l, layerSink, ablation);
        if (architecture.norms().placement() == Norms.Placement.PRE) {
          residualLinear(context, w.outProjWeight(), w.outProjBias(), x, x, n);
          norm(x, scratch, n, w.feedForwardNorm());
          feedForward(scratch, w, x, x, n);
        } else {
          // x = x + N_a(attention); x = x + N_f(FFN(LN2(x))): each output normed, then added
          residualLinear(context, w.outProjWeight(), w.outProjBias(), null, sublayer, n);
          normAndAdd(sublayer, w.attentionOutputNorm(), x, n);
          norm(x, scratch, n, w.feedForwardNorm());
          feedForward(scratch, w, null, sublayer, n);
          normAndAdd(sublayer, w.feedForwardOutputNorm(), x, n);
        }
      } else {
        // x = LN1(x + MHA(x)); x = LN2(x + FFN(x)), each sum and norm in place: a product's
        // rescaling then reads and writes the same rows, still in cache for the norm after it
        attention(batch, x, w, l, layerSink, ablation);
        residualLinear(context, w.outProjWeight(), w.outProjBias(), x, x, n);
        norm(x, x, n, w.attentionNorm());
        feedForward(x, w, x, x, n);
        norm(x, x, n, w.feedForwardNorm());
      }
    }
    if (architecture.norms().finalNorm() && to == weights.layerCount()) {
      norm(x, x, n, weights.finalNorm());
    }
  }

  /** x += norm(y) over N rows of width E (Gemma3's post norms). */
  private void normAndAdd(float[] y, Norm norm, float[] x, int n) {
    norm(y, y, n, norm);
    Vectors.add(y, 0, x, 0, n * width);
  }

  /**
   * N rows of width E normalized from in to out, as the model's norm kind says; a scale alone
   * shifts by nothing.
   */
  private void norm(float[] in, float[] out, int n, Norm norm) {
    if (norm instanceof Norm.Affine a) {
      norm(in, out, n, a.scale(), a.shift());
    } else if (norm instanceof Norm.Scale s) {
      norm(in, out, n, s.scale(), zeros);
    } else {
      throw new IllegalStateException("no norm to apply");
    }
  }

  /** N rows of width E normalized from in to out, as the model's norm kind says. */
  private void norm(float[] in, float[] out, int n, float[] gamma, float[] beta) {
    architecture.norms().kind().apply(in, 0, out, 0, n, gamma, beta, eps());
  }

  private float eps() {
    return (float) architecture.norms().eps();
  }

  private void addPositions(TokenBatch batch, float[] x) {
    switch (settings.positional()) {
      case NONE -> { }
      case SINUSOIDAL -> {
        for (int r = 0; r < batch.tokenCount(); r++) {
          int position = batch.position(r);
          for (int i = 0; i < width; i++) {
            x[r * width + i] += (float) PositionalEncoding.sinusoid(position, i, width);
          }
        }
      }
      case LEARNED -> {
        float[] table = weights.positionTable();                   // (P, E)
        int maxPositions = weights.maxPositions();
        for (int r = 0; r < batch.tokenCount(); r++) {
          int position = batch.position(r);
          if (position >= maxPositions) {
            throw new IllegalArgumentException("token position " + position
                + " is beyond the learned position table (" + maxPositions + " positions)");
          }
          Vectors.add(table, position * width, x, r * width, width);
        }
      }
    }
  }

  /** out (N, E) = residual + in (N, inWidth) · Wᵀ + b; out may be residual; null: none. */
  private void residualLinear(float[] in, Matrix w, float[] bias, float[] residual,
      float[] out, int n) {
    linear(w, n, in, bias, residual, out);
  }

  /**
   * out (N, W's rows) = in (N, W's cols) · Wᵀ + bias + addend (each left out when null; the
   * addend may be out), a block of rows at a time ({@link RowBlocks}), the blocks spread over
   * the task's cores.
   */
  private void linear(Matrix w, int n, float[] in, float[] bias, float[] addend, float[] out) {
    RowBlocks blocks = RowBlocks.of(n, w.blockRows());
    threads.run(blocks.count(), (i, lane) -> {
      int first = blocks.first(i);
      w.linear(blocks.rows(i), in, first * w.cols(), bias, addend, first * w.rows(), out,
          first * w.rows());
    });
  }

  /**
   * out (N, E) = residual + act(in · W1ᵀ + b1) · W2ᵀ + b2, a block of rows at a time, so the
   * (rows, F) hidden buffer stays bounded however large the batch. A gated feed-forward
   * multiplies the activation by (in · Wgᵀ + bg) before W2. out may be residual, and in too:
   * every product reads a block's input rows before it writes the block's output rows.
   */
  private void feedForward(float[] in, LayerWeights w, float[] residual, float[] out, int n) {
    RowBlocks blocks = RowBlocks.of(n, shapes.ffnBlock());
    threads.run(blocks.count(), (i, lane) -> {
      int first = blocks.first(i);
      int rows = blocks.rows(i);
      if (w.feedForward() instanceof Experts experts) {
        if (laneExperts[lane] == null) {
          laneExperts[lane] = new Experts.Scratch();
        }
        experts.apply(rows, in, first * width, architecture.activation(), residual,
            first * width, out, first * width, laneExperts[lane]);
      } else if (w.feedForward() instanceof FeedForward.Plain plain) {
        plain.in().feedForward(rows, in, first * width, plain.inBias(),
            architecture.activation(), plain.out(), plain.outBias(), residual, first * width,
            out, first * width, hidden(lane));
      } else if (w.feedForward() instanceof FeedForward.Gated gated) {
        float[] hidden = hidden(lane);
        float[] gate = gate(lane);
        gated.activated().activatedLinear(rows, in, first * width, gated.activatedBias(),
            architecture.activation(), hidden);                         // (rows, F)
        gated.linear().linear(rows, in, first * width, gated.linearBias(), null, 0, gate, 0);
        Vectors.multiply(gate, 0, hidden, 0, rows * ffnWidth);
        gated.out().linear(rows, hidden, 0, gated.outBias(), residual, first * width, out,
            first * width);                                                  // (rows, E)
      }
    });
  }

  /** Lane {@code lane}'s (block, F) hidden buffer: lane 0's is the encoder's own. */
  private float[] hidden(int lane) {
    return laneBuffer(laneHidden, lane, hidden);
  }

  /** Lane {@code lane}'s (block, F) gate buffer. */
  private float[] gate(int lane) {
    return laneBuffer(laneGate, lane, gate);
  }

  /** {@code own} for lane 0; another lane's buffer of as many floats, made on its first use. */
  private static float[] laneBuffer(float[][] lanes, int lane, float[] own) {
    if (lane == 0) {
      return own;
    }
    if (lanes[lane] == null || lanes[lane].length < own.length) {
      lanes[lane] = new float[own.length];
    }
    return lanes[lane];
  }

  /**
   * context (N, H·D) = concat over heads of softmax(Q_h K_hᵀ / √D + bias + mask) V_h, from in
   * (N, E): the fused projection, q and k normed and rotated where the model says, then each
   * sequence's attention ({@link BatchAttention}).
   */
  private void attention(TokenBatch batch, float[] in, LayerWeights w, int layer,
      AttentionSink sink, HeadAblation ablation) {
    int n = batch.tokenCount();
    int qkvWidth = head.qkvWidth();
    linear(w.inProjWeight(), n, in, w.inProjBias(), null, qkv);
    if (w.queryNorm() instanceof Norm.Scale q && w.keyNorm() instanceof Norm.Scale k) {
      for (int r = 0; r < n; r++) {                    // each head's q and k, over its D
        int queries = r * qkvWidth;
        int keys = queries + head.fused().keyOffset(0);
        RmsNorm.apply(qkv, queries, qkv, queries, heads, headWidth, q.scale(), eps());
        RmsNorm.apply(qkv, keys, qkv, keys, kvHeads, headWidth, k.scale(), eps());
      }
    }
    if (settings.layer(layer).rotary() instanceof RotaryPositions.Rotated) {
      rotate(batch, rotary[layer]);
    }
    terms.layer(batch, w, qkv);
    sequences.attend(batch, qkv, context, layer, settings.mask(layer), sink,
        (first, t) -> valueNorms(w, layer, first, t));
    if (ablation.layer() == layer) {
      removeHeads(batch, ablation);
    }
  }

  /** Zeroes the context of each sequence's removed head, before the output projection. */
  private void removeHeads(TokenBatch batch, HeadAblation ablation) {
    for (int b = 0; b < batch.sequenceCount(); b++) {
      int removed = ablation.heads()[b];
      if (removed < 0) {
        continue;
      }
      for (int r = batch.firstRow(b); r < batch.firstRow(b) + batch.length(b); r++) {
        java.util.Arrays.fill(context, r * inner + removed * headWidth,
            r * inner + (removed + 1) * headWidth, 0f);
      }
    }
  }

  /**
   * (H, T): ‖v_j^h W_O^hᵀ‖₂ of each real token j of the sequence from row {@code first} and
   * head h, v_j^h its value head (bias included) in the fused buffer and W_O^h the (E, D)
   * columns of the output projection that h's context feeds; in double. T·H·D·E multiply-adds,
   * as the output projection's: asked for the kept sequences only.
   */
  private float[] valueNorms(LayerWeights w, int layer, int first, int t) {
    float[] out = outputProjections[layer];
    if (out == null) {
      out = w.outProjWeight().floats();                    // (E, H·D); dequantized if reduced
      outputProjections[layer] = out;
    }
    int qkvWidth = head.qkvWidth();
    float[] norms = new float[heads * t];
    for (int h = 0; h < heads; h++) {
      for (int j = 0; j < t; j++) {
        int value = (first + j) * qkvWidth + head.valueOffset(h);
        double sum = 0;
        for (int e = 0; e < width; e++) {
          int column = e * inner + h * headWidth;
          double dot = 0;
          for (int d = 0; d < headWidth; d++) {
            dot += qkv[value + d] * out[column + d];
          }
          sum += dot * dot;
        }
        norms[h * t + j] = (float) Math.sqrt(sum);
      }
    }
    return norms;
  }

  /** Rotates every q and k head (N rows of the fused qkv buffer) by its token's position. */
  private void rotate(TokenBatch batch, Rotary table) {
    int n = batch.tokenCount();
    int qkvWidth = head.qkvWidth();
    table.cover(batch.positionsCovered());
    for (int r = 0; r < n; r++) {
      int position = batch.position(r);
      for (int h = 0; h < heads + kvHeads; h++) {          // q heads, then the k heads after them
        table.rotate(qkv, r * qkvWidth + h * headWidth, position);
      }
    }
  }

  private void ensureCapacity(int n) {
    if (n <= capacity) {
      return;
    }
    capacity = Math.max(n, capacity + capacity / 2);
    qkv = new float[Math.toIntExact(shapes.qkvFloats(capacity))];
    context = new float[Math.toIntExact(shapes.contextFloats(capacity))];
    scratch = new float[Math.toIntExact(shapes.streamFloats(capacity))];
    sublayer = shapes.postNorms() ? new float[scratch.length] : sublayer;
    hidden = new float[Math.toIntExact(shapes.hiddenFloats(capacity))];
    gate = shapes.gated() ? new float[hidden.length] : gate;
  }

  /** The floats this encoder's work buffers hold now (what {@link Shapes#bufferFloats} says). */
  public long bufferFloats() {
    return (long) qkv.length + context.length + scratch.length + sublayer.length + hidden.length
        + gate.length;
  }

  /** Its shape table. */
  public Shapes shapes() {
    return shapes;
  }
}
