package io.corpus.encoder.weights;

import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.model.LayerWeights;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Where each parameter of layer i sits in a weights file ({@code model.naming}). Both schemes
 * end in the same {@link LayerWeights}: BERT's separate query, key and value are stacked into
 * PyTorch's fused (3E, E) input projection, rows q then k then v.
 */
public enum TensorNaming implements ConfigName {
  /** {@code torch.nn.TransformerEncoder}'s state dict: {@code layers.i.self_attn.in_proj_weight}... */
  PYTORCH("pytorch", "layers.") {
    @Override
    LayerWeights readLayer(TensorSource source, int i, int e, int f) {
      String p = "layers." + i + ".";
      return LayerWeights.builder(e, f)
          .attention(source.take(p + "self_attn.in_proj_weight", 3 * e, e),
              source.take(p + "self_attn.out_proj.weight", e, e))
          .attentionBiases(source.take(p + "self_attn.in_proj_bias", 3 * e),
              source.take(p + "self_attn.out_proj.bias", e))
          .feedForward(source.take(p + "linear1.weight", f, e),
              source.take(p + "linear2.weight", e, f))
          .feedForwardBiases(source.take(p + "linear1.bias", f), source.take(p + "linear2.bias", e))
          .norms(source.take(p + "norm1.weight", e), source.take(p + "norm1.bias", e),
              source.take(p + "norm2.weight", e), source.take(p + "norm2.bias", e))
          .build();
    }

    @Override
    String widthTensor(int i) {
      return "layers." + i + ".norm1.weight";
    }

    @Override
    String ffnBiasTensor(int i) {
      return "layers." + i + ".linear1.bias";
    }
  },

  /** Hugging Face BERT: {@code encoder.layer.i.attention.self.query.weight}... */
  BERT("bert", "encoder.layer.") {
    @Override
    LayerWeights readLayer(TensorSource source, int i, int e, int f) {
      return EncoderLayerNames.BERT.read(source, "encoder.layer." + i + ".", e, f);
    }

    @Override
    String widthTensor(int i) {
      return "encoder.layer." + i + ".attention.output.LayerNorm.weight";
    }

    @Override
    String ffnBiasTensor(int i) {
      return "encoder.layer." + i + ".intermediate.dense.bias";
    }
  };

  /** Reads tensors by name, checking each shape. */
  interface TensorSource {
    float[] take(String name, long... shape);

    /**
     * A (rows, cols) table, such as a decoder's token embeddings: float32 as {@link #take}
     * reads it, unless the source keeps BF16 tables as they are stored.
     */
    default Matrix table(String name, long rows, long cols) {
      return Matrix.of(take(name, rows, cols), Math.toIntExact(rows), Math.toIntExact(cols));
    }

    /** The first dimension of a tensor, or −1 when there is no such tensor. */
    long rows(String name);

    /**
     * Passes over a tensor the family's modelling code drops on load (when the checkpoint has
     * it), so that it is not reported as unexpected.
     */
    void ignore(String name);

    /** Where the tensors are, for messages. */
    Path path();

    /**
     * A value made from tensors that several layers read alike (DeBERTa's normalized relative
     * embeddings), made on the first call with this {@code key} and handed to every later one
     * of the same load, whichever thread asks.
     */
    <T> T shared(String key, Supplier<T> make);
  }

  private final String configName;
  private final String layerPrefix;

  TensorNaming(String configName, String layerPrefix) {
    this.configName = configName;
    this.layerPrefix = layerPrefix;
  }

  @Override
  public String configName() {
    return configName;
  }

  /** Names of layer tensors start with this, then the layer index and a dot. */
  String layerPrefix() {
    return layerPrefix;
  }

  abstract LayerWeights readLayer(TensorSource source, int layer, int width, int ffnWidth);

  /** A (E) tensor of layer i whose length gives the width. */
  abstract String widthTensor(int layer);

  /** The (F) first feed-forward bias of layer i. */
  abstract String ffnBiasTensor(int layer);

  public static TensorNaming fromConfigName(String name) {
    return ConfigName.parse(values(), name, "naming");
  }

  static float[] concat(float[]... parts) {
    int length = 0;
    for (float[] part : parts) {
      length += part.length;
    }
    float[] out = new float[length];
    int offset = 0;
    for (float[] part : parts) {
      System.arraycopy(part, 0, out, offset, part.length);
      offset += part.length;
    }
    return out;
  }
}
