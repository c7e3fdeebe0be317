/**
 * Makers of sample and benchmark data, not the product: the sample job's files ({@code
 * jobs/samples/make-samples}, {@code jobs/samples/make-text-sample}), a real-text corpus ({@code
 * jobs/samples/make-text-corpus}), long documents and enrichment inputs for the benchmarks.
 */
package io.corpus.encoder.samples;
