/**
 * Text to token ids with a model's own tokenizer. Plain Java, no Spark: a task makes one tokenizer
 * from the model folder's file and runs it over its rows.
 */
package io.corpus.encoder.text;
