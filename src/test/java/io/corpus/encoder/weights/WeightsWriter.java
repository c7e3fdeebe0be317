package io.corpus.encoder.weights;

import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.LayerWeights;
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
      if (naming == TensorNaming.PYTORCH) {
        String p = "layers." + i + ".";
        out.put(p + "self_attn.in_proj_weight", l.inProjWeight().floats(), 3 * e, e)
            .put(p + "self_attn.in_proj_bias", l.inProjBias(), 3 * e)
            .put(p + "self_attn.out_proj.weight", l.outProjWeight().floats(), e, e)
            .put(p + "self_attn.out_proj.bias", l.outProjBias(), e)
            .put(p + "linear1.weight", l.ffnInWeight().floats(), f, e)
            .put(p + "linear1.bias", l.ffnInBias(), f)
            .put(p + "linear2.weight", l.ffnOutWeight().floats(), e, f)
            .put(p + "linear2.bias", l.ffnOutBias(), e)
            .put(p + "norm1.weight", l.norm1Gamma(), e)
            .put(p + "norm1.bias", l.norm1Beta(), e)
            .put(p + "norm2.weight", l.norm2Gamma(), e)
            .put(p + "norm2.bias", l.norm2Beta(), e);
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
            .put(p + "intermediate.dense.weight", l.ffnInWeight().floats(), f, e)
            .put(p + "intermediate.dense.bias", l.ffnInBias(), f)
            .put(p + "output.dense.weight", l.ffnOutWeight().floats(), e, f)
            .put(p + "output.dense.bias", l.ffnOutBias(), e)
            .put(p + "attention.output.LayerNorm.weight", l.norm1Gamma(), e)
            .put(p + "attention.output.LayerNorm.bias", l.norm1Beta(), e)
            .put(p + "output.LayerNorm.weight", l.norm2Gamma(), e)
            .put(p + "output.LayerNorm.bias", l.norm2Beta(), e);
      }
    }
    if (w.finalNormGamma() != null) {
      out.put("norm.weight", w.finalNormGamma(), e).put("norm.bias", w.finalNormBeta(), e);
    }
    if (w.positionTable() != null) {
      out.put("positional.weight", w.positionTable(), w.maxPositions(), e);
    }
    out.write(path);
  }
}
