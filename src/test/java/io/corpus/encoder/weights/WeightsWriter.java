package io.corpus.encoder.weights;

import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.FeedForward;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.Norm;
import io.corpus.encoder.model.RandomModels;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/** Writes {@link EncoderWeights} as a safetensors file under either naming: the loader's inverse. */
public final class WeightsWriter {
  private WeightsWriter() {}

  public static void write(EncoderWeights w, TensorNaming naming, Path path) throws IOException {
    int e = w.width();
    int f = w.ffnWidth();
    SafetensorsWriter out = new SafetensorsWriter();
    for (int i = 0; i < w.layerCount(); i++) {
      LayerWeights l = w.layers().get(i);
      FeedForward.Plain ff = RandomModels.plain(l);
      Norm.Affine norm1 = RandomModels.affine(l.attentionNorm());
      Norm.Affine norm2 = RandomModels.affine(l.feedForwardNorm());
      if (naming == TensorNaming.PYTORCH) {
        String p = "layers." + i + ".";
        out.put(p + "self_attn.in_proj_weight", l.inProjWeight().floats(), 3 * e, e)
            .put(p + "self_attn.in_proj_bias", l.inProjBias(), 3 * e)
            .put(p + "self_attn.out_proj.weight", l.outProjWeight().floats(), e, e)
            .put(p + "self_attn.out_proj.bias", l.outProjBias(), e)
            .put(p + "linear1.weight", ff.in().floats(), f, e)
            .put(p + "linear1.bias", ff.inBias(), f)
            .put(p + "linear2.weight", ff.out().floats(), e, f)
            .put(p + "linear2.bias", ff.outBias(), e)
            .put(p + "norm1.weight", norm1.scale(), e)
            .put(p + "norm1.bias", norm1.shift(), e)
            .put(p + "norm2.weight", norm2.scale(), e)
            .put(p + "norm2.bias", norm2.shift(), e);
      } else {
        String p = "encoder.layer." + i + ".";
        String[] qkv = {"query", "key", "value"};
        for (int j = 0; j < 3; j++) {
          out.put(p + "attention.self." + qkv[j] + ".weight",
              Arrays.copyOfRange(l.inProjWeight().floats(), j * e * e, (j + 1) * e * e), e, e);
          out.put(p + "attention.self." + qkv[j] + ".bias",
              Arrays.copyOfRange(l.inProjBias(), j * e, (j + 1) * e), e);
        }
        out.put(p + "attention.output.dense.weight", l.outProjWeight().floats(), e, e)
            .put(p + "attention.output.dense.bias", l.outProjBias(), e)
            .put(p + "intermediate.dense.weight", ff.in().floats(), f, e)
            .put(p + "intermediate.dense.bias", ff.inBias(), f)
            .put(p + "output.dense.weight", ff.out().floats(), e, f)
            .put(p + "output.dense.bias", ff.outBias(), e)
            .put(p + "attention.output.LayerNorm.weight", norm1.scale(), e)
            .put(p + "attention.output.LayerNorm.bias", norm1.shift(), e)
            .put(p + "output.LayerNorm.weight", norm2.scale(), e)
            .put(p + "output.LayerNorm.bias", norm2.shift(), e);
      }
    }
    if (w.finalNorm() instanceof Norm.Affine norm) {
      out.put("norm.weight", norm.scale(), e).put("norm.bias", norm.shift(), e);
    }
    if (w.positionTable().length > 0) {
      out.put("positional.weight", w.positionTable(), w.maxPositions(), e);
    }
    out.write(path);
  }
}
