/** Command-line entry points: {@code jobs/encode} runs {@link io.corpus.encoder.cli.EncodeJob}. */
package io.corpus.encoder.cli;
