package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.corpus.encoder.testing.SystemProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Which library multiplies float32 weights: oneDNN only where it is at least 1.1 times the
 * BLAS's rate, the BLAS where oneDNN did not load; {@value Float32Products#PROPERTY} pins either
 * and refuses any other value by name. Sets a system property: isolated.
 */
@Isolated
class Float32ProductsTest {
  private final SystemProperty pinned = SystemProperty.remember(Float32Products.PROPERTY);

  @AfterEach
  void restore() {
    pinned.close();
  }

  @Test
  void oneDnnIsChosenOnlyWhereItIsClearlyFaster() {
    Float32Products.Choice faster = Float32Products.decide(93, 161, "");
    assertEquals(Float32Products.ONEDNN, faster.library());
    assertEquals("161 GFLOP/s against the BLAS's 93", faster.why());
    assertEquals(Float32Products.ONEDNN, Float32Products.decide(100, 111, "").library());
    Float32Products.Choice level = Float32Products.decide(150, 160, "");
    assertEquals(Float32Products.BLAS, level.library());
    assertEquals("150 GFLOP/s; oneDNN's 160 is not 1.10 times that", level.why());
    Float32Products.Choice missing = Float32Products.decide(150, Double.NaN,
        "did not load: no jar");
    assertEquals(Float32Products.BLAS, missing.library());
    assertEquals("oneDNN did not load: no jar", missing.why());
  }

  @Test
  void thePropertyPinsTheLibraryOfEveryFloat32Matrix() {
    Matrix m = Matrix.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    System.setProperty(Float32Products.PROPERTY, "blas");
    assertSame(m, m.in(Precision.FLOAT32));
    assertTrue(Float32Products.describe().startsWith("float32 products on the BLAS"),
        Float32Products.describe());
    assumeTrue(OneDnn.available(), "oneDNN did not load: " + OneDnn.failure());
    System.setProperty(Float32Products.PROPERTY, " oneDNN ");
    Matrix moved = m.in(Precision.FLOAT32);
    assertInstanceOf(OneDnnFloat32Matrix.class, moved);
    assertSame(moved, moved.in(Precision.FLOAT32), "already where its products run");
    assertTrue(Float32Products.describe().startsWith("float32 products on oneDNN "),
        Float32Products.describe());
  }

  @Test
  void anyOtherValueIsRefusedByName() {
    System.setProperty(Float32Products.PROPERTY, "mkl");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Matrix.of(new float[] {1}, 1, 1).in(Precision.FLOAT32));
    assertEquals(Float32Products.PROPERTY + " is 'mkl'; it takes auto, blas or onednn",
        e.getMessage());
  }

  @Test
  void calibratedTheChoiceGivesBothRates() {
    System.setProperty(Float32Products.PROPERTY, "auto");
    Float32Products.Choice c = Float32Products.choice();
    System.out.println(Float32Products.describe());
    assertTrue(c.blasRate() > 0, c.toString());
    assertTrue(!OneDnn.available() || c.oneDnnRate() > 0, c.toString());
    assertTrue(Float32Products.rate() > 0);
  }
}
