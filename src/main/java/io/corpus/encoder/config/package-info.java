/**
 * Job settings: HOCON parsed once on the driver into immutable, serializable records. Executors
 * receive the records, never a {@code Config}.
 */
package io.corpus.encoder.config;
