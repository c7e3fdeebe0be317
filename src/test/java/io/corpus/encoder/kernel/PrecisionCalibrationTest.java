package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The product rate a job's piece estimate uses: float32's is the BLAS's calibration where the BLAS
 * multiplies float32 weights, and above it where oneDNN was chosen for being faster ({@link
 * Float32Products}); a precision this processor runs is measured once per JVM on its own
 * products, one it refuses falls back to float32's. Runs on whatever processor this is; both
 * branches are asserted by what it refuses, and by which library float32 is on.
 */
class PrecisionCalibrationTest {
  @Test
  void eachPrecisionIsGivenTheRateOfItsOwnProducts() {
    double sgemm = RowMajorBlas.sgemmGflops();
    double float32 = PrecisionCalibration.productRate(Precision.FLOAT32);
    System.out.println(Float32Products.describe());
    if (Float32Products.chosen() == Float32Products.BLAS) {
      assertEquals(sgemm, float32);
    } else {
      assertTrue(float32 > sgemm, "oneDNN was chosen for being faster: " + float32);
    }
    for (Precision p : new Precision[] {Precision.INT8, Precision.BFLOAT16}) {
      double rate = PrecisionCalibration.productRate(p);
      System.out.printf("%s: %.0f G/s (float32 %.0f GFLOP/s)%s%n", p.configName(), rate,
          float32, p.refusal().map(r -> "; refused: " + r).orElse(""));
      if (p.refusal().isPresent()) {
        assertEquals(float32, rate, p + " is refused here: float32's rate");
      } else {
        assertTrue(rate > 0, p + ": " + rate);
        assertNotEquals(float32, rate, p + " runs here: its own products' rate, not float32's");
        assertEquals(rate, PrecisionCalibration.productRate(p), p + " is measured once");
      }
    }
  }
}
