/**
 * Makers of sample and benchmark data, not the product: the sample job's files ({@code
 * jobs/make-samples}, {@code jobs/make-text-sample}), a real-text corpus ({@code
 * jobs/make-text-corpus}), long documents and enrichment inputs for the benchmarks.
 */
package io.corpus.encoder.samples;
