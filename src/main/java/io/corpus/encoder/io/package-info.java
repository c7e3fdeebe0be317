/** Where a job's results go: the output folder, committed at once, and the run summary. */
package io.corpus.encoder.io;
