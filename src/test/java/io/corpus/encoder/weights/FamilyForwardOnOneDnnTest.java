package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.corpus.encoder.kernel.Float32Products;
import io.corpus.encoder.kernel.OneDnn;
import io.corpus.encoder.kernel.OneDnnFloat32Matrix;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.testing.SystemProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Every family's cases of {@link FamilyForwardTest}, to the same tolerances, with the float32
 * weight products on oneDNN's matmul ({@value Float32Products#PROPERTY} pinned to onednn), as
 * the job multiplies them where oneDNN is the faster library: every layer's weights are held
 * there. Sets a system property: isolated.
 */
@Isolated
class FamilyForwardOnOneDnnTest extends FamilyForwardTest {
  private static SystemProperty pinned;

  @BeforeAll
  static void pinOneDnn() {
    assumeTrue(OneDnn.available(), "oneDNN did not load: " + OneDnn.failure());
    pinned = SystemProperty.set(Float32Products.PROPERTY, "onednn");
  }

  @AfterAll
  static void restore() {
    if (pinned != null) {
      pinned.close();
    }
  }

  @Override
  void loaded(Case c, EncoderModel model) {
    for (LayerWeights layer : model.encoder().layers()) {
      assertInstanceOf(OneDnnFloat32Matrix.class, layer.inProjWeight(), c.toString());
      assertInstanceOf(OneDnnFloat32Matrix.class, layer.outProjWeight(), c.toString());
    }
  }
}
