/**
 * Reading encoder weights from safetensors files on the driver: the file format, the two tensor
 * naming schemes, and the checks that every tensor is present with the shape the settings imply.
 */
package io.corpus.encoder.weights;
