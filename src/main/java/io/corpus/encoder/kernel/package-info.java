/**
 * Numeric building blocks on row-major {@code float[]} buffers: matrix products through netlib BLAS,
 * and the element-wise passes around them (bias, layer norm, softmax, activations).
 *
 * <p>Plain Java, no Spark. Every method takes an array, an offset and the sizes it works on, and
 * allocates nothing, so callers can keep their buffers across batches.
 */
package io.corpus.encoder.kernel;
