/**
 * The transformer encoder, in plain Java (no Spark): settings, weights, the fast batched forward
 * pass over BLAS, and a plain reference implementation that tests hold the fast one against.
 *
 * <h2>Dimension legend</h2>
 * <pre>
 *   B  sequences in a batch
 *   T  tokens in one sequence (its real tokens: padding is dropped before the model sees it)
 *   N  tokens of a whole batch, stacked: the sum of T over its B sequences
 *   E  model width (d_model)
 *   H  attention heads
 *   D  head width, E / H
 *   F  feed-forward width
 *   L  layers
 *   P  longest sequence a learned position table allows (max_len)
 * </pre>
 * Matrices are row-major {@code float[]}; a shape comment such as {@code (N, 3E)} gives rows and
 * columns. Linear weights keep PyTorch's (out, in) layout: {@code y = x·Wᵀ + b}.
 */
package io.corpus.encoder.model;
