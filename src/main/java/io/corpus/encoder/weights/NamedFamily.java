package io.corpus.encoder.weights;

/**
 * A family given by its {@link ModelFamily.Names}: a family class passes them, as data, and
 * writes only what it computes differently.
 */
abstract class NamedFamily implements ModelFamily {
  private final Names names;

  NamedFamily(Names names) {
    this.names = names;
  }

  @Override
  public final Names names() {
    return names;
  }

  /** Where layer i's tensors begin: the names' layer prefix, i and a dot. */
  final String layerPrefix(int i) {
    return names.layerPrefix() + i + ".";
  }
}
