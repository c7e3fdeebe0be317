package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.Window;
import io.corpus.encoder.testing.GoldenCase;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WeightsLoaderTest {
  @TempDir
  Path tmp;

  private static ModelSettings settings(int heads) {
    return new ModelSettings(heads, Architecture.encoder(Activation.RELU, 1e-5).build(),
        Window.GLOBAL,
        PositionalEncoding.NONE);
  }

  @Test
  void bertNamingStacksQueryKeyValueLikePyTorchsInProjection() {
    GoldenCase bert = GoldenCase.named("bert-naming");
    EncoderWeights w = WeightsLoader.load(bert.weights(), TensorNaming.BERT, bert.settings());
    SafetensorsFile f = SafetensorsFile.open(bert.weights());
    float[] key = f.read("encoder.layer.1.attention.self.key.weight");
    float[] inProj = w.layers().get(1).inProjWeight().floats();
    assertEquals(3 * key.length, inProj.length);
    for (int i = 0; i < key.length; i++) {
      assertEquals(key[i], inProj[key.length + i]);
    }
    assertEquals(2, w.layerCount());
    assertEquals(64, w.width());
    assertEquals(256, w.ffnWidth());
  }

  /**
   * A weights file in a reduced precision: each layer converted as it is read (the float32 copy
   * of one layer held at a time), to the same products as the whole float32 model converted
   * after.
   */
  @Test
  void aFilesLayersArePutInThePrecisionAsTheyAreRead() {
    GoldenCase bert = GoldenCase.named("bert-naming");
    EncoderWeights float32 = WeightsLoader.load(bert.weights(), TensorNaming.BERT,
        bert.settings());
    float[] x = new float[3 * float32.width()];
    Random random = new Random(7);
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) random.nextGaussian();
    }
    int checked = 0;
    for (Precision precision : Precision.values()) {
      if (precision.refusal().isPresent()) {
        continue;   // not run on this processor
      }
      EncoderWeights read = WeightsLoader.load(bert.weights(), TensorNaming.BERT,
          bert.settings(), precision);
      EncoderWeights after = float32.in(precision);
      assertEquals(precision, read.precision());
      for (int l = 0; l < read.layerCount(); l++) {
        Matrix m = read.layers().get(l).outProjWeight();
        Matrix expected = after.layers().get(l).outProjWeight();
        assertEquals(precision, m.precision(), "layer " + l);
        float[] y = new float[3 * m.rows()];
        float[] yExpected = new float[y.length];
        m.multiply(3, x, 0, y, 0, false);
        expected.multiply(3, x, 0, yExpected, 0, false);
        assertArrayEquals(yExpected, y, precision + ", layer " + l);
      }
      checked++;
    }
    assertTrue(checked >= 1, "float32 at least");
  }

  @Test
  void missingTensorIsNamedWithItsExpectedShape() throws IOException {
    Path file = tmp.resolve("w.safetensors");
    Writer.layer(new SafetensorsWriter(), 0, 8, 16, "linear2.bias").write(file);
    WeightsException e = assertThrows(WeightsException.class,
        () -> WeightsLoader.load(file, TensorNaming.PYTORCH, settings(2)));
    assertEquals("Tensor layers.0.linear2.bias is missing from " + file + " (expected shape [8])",
        e.getMessage());
  }

  @Test
  void wrongShapeNamesTensorExpectedAndActual() throws IOException {
    Path file = tmp.resolve("w.safetensors");
    Writer.layer(new SafetensorsWriter(), 0, 8, 16, "linear1.weight")
        .put("layers.0.linear1.weight", new float[16 * 7], 16, 7).write(file);
    WeightsException e = assertThrows(WeightsException.class,
        () -> WeightsLoader.load(file, TensorNaming.PYTORCH, settings(2)));
    assertEquals("Tensor layers.0.linear1.weight has shape [16, 7], expected [16, 8]: " + file,
        e.getMessage());
  }

  @Test
  void headsThatDoNotDivideTheWidthAreRefused() throws IOException {
    Path file = tmp.resolve("w.safetensors");
    Writer.layer(new SafetensorsWriter(), 0, 8, 16, "").write(file);
    WeightsException e = assertThrows(WeightsException.class,
        () -> WeightsLoader.load(file, TensorNaming.PYTORCH, settings(3)));
    assertEquals("model.heads = 3 does not divide the width 8 of the weights in " + file,
        e.getMessage());
  }

  @Test
  void unexpectedTensorsAndNonFiniteValuesAreRefused() throws IOException {
    Path file = tmp.resolve("w.safetensors");
    Writer.layer(new SafetensorsWriter(), 0, 8, 16, "").put("norm.weight", new float[8], 8)
        .put("norm.bias", new float[8], 8).write(file);
    WeightsException extra = assertThrows(WeightsException.class,
        () -> WeightsLoader.load(file, TensorNaming.PYTORCH, settings(2)));
    assertEquals("Unexpected tensors in " + file + ": [norm.bias, norm.weight] (set "
        + "model.final-norm = true to use norm.*)", extra.getMessage());

    float[] bad = new float[8];
    bad[5] = Float.NaN;
    Writer.layer(new SafetensorsWriter(), 0, 8, 16, "norm2.bias")
        .put("layers.0.norm2.bias", bad, 8).write(file);
    WeightsException nan = assertThrows(WeightsException.class,
        () -> WeightsLoader.load(file, TensorNaming.PYTORCH, settings(2)));
    assertEquals("Tensor layers.0.norm2.bias holds NaN at flat index 5: " + file, nan.getMessage());
  }

  @Test
  void wrongNamingSaysWhatWasFound() {
    GoldenCase bert = GoldenCase.named("bert-naming");
    WeightsException e = assertThrows(WeightsException.class,
        () -> WeightsLoader.load(bert.weights(), TensorNaming.PYTORCH, bert.settings()));
    assertTrue(e.getMessage().startsWith("No layer tensors named layers.<i>.* in "), e.getMessage());
    assertTrue(e.getMessage().contains("model.naming = pytorch"), e.getMessage());
  }

  /** Writes one PyTorch-named layer of random weights, leaving out one tensor by suffix. */
  static final class Writer {
    static SafetensorsWriter layer(SafetensorsWriter w, int i, int e, int f, String leaveOut) {
      Random random = new Random(i);
      String p = "layers." + i + ".";
      put(w, p, "self_attn.in_proj_weight", random, leaveOut, 3 * e, e);
      put(w, p, "self_attn.in_proj_bias", random, leaveOut, 3 * e);
      put(w, p, "self_attn.out_proj.weight", random, leaveOut, e, e);
      put(w, p, "self_attn.out_proj.bias", random, leaveOut, e);
      put(w, p, "linear1.weight", random, leaveOut, f, e);
      put(w, p, "linear1.bias", random, leaveOut, f);
      put(w, p, "linear2.weight", random, leaveOut, e, f);
      put(w, p, "linear2.bias", random, leaveOut, e);
      for (String n : new String[] {"norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"}) {
        put(w, p, n, random, leaveOut, e);
      }
      return w;
    }

    private static void put(SafetensorsWriter w, String prefix, String name, Random random,
        String leaveOut, long... shape) {
      if (name.equals(leaveOut)) {
        return;
      }
      long count = 1;
      for (long d : shape) {
        count *= d;
      }
      float[] values = new float[(int) count];
      for (int k = 0; k < values.length; k++) {
        values[k] = (float) random.nextGaussian();
      }
      w.put(prefix + name, values, shape);
    }
  }
}
