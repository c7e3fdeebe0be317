/**
 * Benchmarks, not the product: the encoder's layers and their products alone ({@link
 * io.corpus.encoder.bench.Bench}, {@link io.corpus.encoder.bench.ProductsOnly}), long documents
 * ({@link io.corpus.encoder.bench.BenchLong}), a whole job's input ({@link
 * io.corpus.encoder.bench.BenchJob}) and the text pipeline without Spark ({@link
 * io.corpus.encoder.bench.BenchText}). Run by the {@code jobs/benchmarks/bench*} scripts; their figures are in
 * {@code src/site/markdown/speed.md}.
 */
package io.corpus.encoder.bench;
