package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The product rate a job's piece estimate uses: float32's is the BLAS's calibration, a precision
 * this processor runs is measured once per JVM on its own products, one it refuses falls back to
 * float32's. Runs on whatever processor this is; both branches are asserted by what it refuses.
 */
class PrecisionCalibrationTest {
  @Test
  void eachPrecisionIsGivenTheRateOfItsOwnProducts() {
    double sgemm = RowMajorBlas.sgemmGflops();
    assertEquals(sgemm, PrecisionCalibration.productRate(Precision.FLOAT32));
    for (Precision p : new Precision[] {Precision.INT8, Precision.BFLOAT16}) {
      double rate = PrecisionCalibration.productRate(p);
      System.out.printf("%s: %.0f G/s (sgemm %.0f GFLOP/s)%s%n", p.configName(), rate, sgemm,
          p.refusal().map(r -> "; refused: " + r).orElse(""));
      if (p.refusal().isPresent()) {
        assertEquals(sgemm, rate, p + " is refused here: float32's rate");
      } else {
        assertTrue(rate > 0, p + ": " + rate);
        assertNotEquals(sgemm, rate, p + " runs here: its own products' rate, not sgemm's");
        assertEquals(rate, PrecisionCalibration.productRate(p), p + " is measured once");
      }
    }
  }
}
