package io.corpus.encoder.report;

import io.corpus.encoder.kernel.RowMajorBlas;
import java.util.Random;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.EigenDecomposition;
import org.apache.commons.math3.linear.RealMatrix;

/**
 * The corpus map's projection: N rows of E values onto their first two principal components, as
 * PCA defines them (eigenvectors of the covariance of the centred rows, largest eigenvalue
 * first). Computed on the driver in a few milliseconds: the (E, E) covariance is one sgemm, its
 * leading eigenvectors come from subspace iteration on {@link #SUBSPACE} vectors and a
 * Rayleigh–Ritz step (Halko, Martinsson and Tropp 2011, algorithm 4.4), exact to float precision
 * once the iteration has converged. A component's sign is arbitrary in PCA; here its largest
 * entry is positive, so reruns draw the same picture.
 */
public final class PrincipalComponents {
  static final int SUBSPACE = 8;
  static final int ITERATIONS = 60;

  private PrincipalComponents() {}

  /**
   * @param rows (N, E) row-major
   * @return (N, 2) the centred rows' coordinates on the first two components, row-major
   *     (zeros when N &lt; 2)
   */
  public static float[] project(float[] rows, int n, int e) {
    float[] xy = new float[2 * n];
    if (n < 2 || e == 0) {
      return xy;
    }
    float[] centred = centred(rows, n, e);
    float[] covariance = new float[e * e];   // (E, E) = Xcᵀ Xc / (N − 1)
    RowMajorBlas.gemm(true, false, e, e, n, 1f / (n - 1), centred, 0, e, centred, 0, e, 0f,
        covariance, 0, e);
    double[][] components = leadingEigenvectors(covariance, e, Math.min(2, e));
    for (int i = 0; i < n; i++) {
      for (int c = 0; c < components.length; c++) {
        double sum = 0;
        for (int j = 0; j < e; j++) {
          sum += centred[i * e + j] * components[c][j];
        }
        xy[2 * i + c] = (float) sum;
      }
    }
    return xy;
  }

  private static float[] centred(float[] rows, int n, int e) {
    double[] mean = new double[e];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < e; j++) {
        mean[j] += rows[i * e + j];
      }
    }
    float[] centred = new float[n * e];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < e; j++) {
        centred[i * e + j] = (float) (rows[i * e + j] - mean[j] / n);
      }
    }
    return centred;
  }

  /** The {@code count} eigenvectors of the symmetric (E, E) matrix with largest eigenvalues. */
  static double[][] leadingEigenvectors(float[] symmetric, int e, int count) {
    int p = Math.min(SUBSPACE, e);
    double[][] basis = new double[p][e];   // p orthonormal vectors of E, as rows
    Random random = new Random(17);
    for (double[] v : basis) {
      for (int j = 0; j < e; j++) {
        v[j] = random.nextGaussian();
      }
    }
    orthonormalize(basis);
    for (int iteration = 0; iteration < ITERATIONS; iteration++) {
      for (int v = 0; v < p; v++) {
        basis[v] = times(symmetric, e, basis[v]);
      }
      orthonormalize(basis);
    }
    // Rayleigh–Ritz: the (p, p) matrix Qᵀ A Q, whose eigenvectors rotate Q onto A's.
    double[][] small = new double[p][p];
    double[][] images = new double[p][];
    for (int v = 0; v < p; v++) {
      images[v] = times(symmetric, e, basis[v]);
    }
    for (int a = 0; a < p; a++) {
      for (int b = 0; b < p; b++) {
        small[a][b] = 0.5 * (dot(basis[a], images[b]) + dot(basis[b], images[a]));
      }
    }
    RealMatrix ritz = new Array2DRowRealMatrix(small, false);
    EigenDecomposition decomposition = new EigenDecomposition(ritz);
    double[] values = decomposition.getRealEigenvalues();
    Integer[] order = new Integer[p];
    for (int i = 0; i < p; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> Double.compare(values[b], values[a]));
    double[][] out = new double[count][e];
    for (int c = 0; c < count; c++) {
      double[] weights = decomposition.getEigenvector(order[c]).toArray();
      for (int v = 0; v < p; v++) {
        for (int j = 0; j < e; j++) {
          out[c][j] += weights[v] * basis[v][j];
        }
      }
      int largest = 0;
      for (int j = 1; j < e; j++) {
        if (Math.abs(out[c][j]) > Math.abs(out[c][largest])) {
          largest = j;
        }
      }
      if (out[c][largest] < 0) {
        for (int j = 0; j < e; j++) {
          out[c][j] = -out[c][j];
        }
      }
    }
    return out;
  }

  private static double[] times(float[] matrix, int e, double[] v) {
    double[] out = new double[e];
    for (int i = 0; i < e; i++) {
      double sum = 0;
      for (int j = 0; j < e; j++) {
        sum += matrix[i * e + j] * v[j];
      }
      out[i] = sum;
    }
    return out;
  }

  /** Modified Gram–Schmidt, twice for stability; a vector that vanishes is replaced by noise. */
  private static void orthonormalize(double[][] vectors) {
    for (int pass = 0; pass < 2; pass++) {
      for (int a = 0; a < vectors.length; a++) {
        for (int b = 0; b < a; b++) {
          double d = dot(vectors[a], vectors[b]);
          for (int j = 0; j < vectors[a].length; j++) {
            vectors[a][j] -= d * vectors[b][j];
          }
        }
        double norm = Math.sqrt(dot(vectors[a], vectors[a]));
        for (int j = 0; j < vectors[a].length; j++) {
          vectors[a][j] = norm > 1e-300 ? vectors[a][j] / norm : (j == a ? 1 : 0);
        }
      }
    }
  }

  private static double dot(double[] a, double[] b) {
    double sum = 0;
    for (int j = 0; j < a.length; j++) {
      sum += a[j] * b[j];
    }
    return sum;
  }
}
