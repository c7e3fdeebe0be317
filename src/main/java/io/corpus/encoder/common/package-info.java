/** Small pieces every other package uses. */
package io.corpus.encoder.common;
