/**
 * Spark side of the encoder: moves rows in and out. {@link io.corpus.encoder.pipeline.EncoderTransformer}
 * is a Spark ML Transformer; each partition's rows are read straight from Spark's internal rows into
 * a {@link io.corpus.encoder.model.TokenBatch}, run through the plain-Java encoder, and written back
 * as internal rows, with no boxing of floats.
 */
package io.corpus.encoder.pipeline;
