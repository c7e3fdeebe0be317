package io.corpus.encoder.text;

import io.corpus.encoder.testing.ProbeMaps;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Tokenizes "Hello, world" with the tokenizer.json given as the argument; prints the ids, then the
 * mapped files whose names say libtokenizers.
 */
public final class TokenizerProbe {
  private TokenizerProbe() {}

  public static void main(String[] args) {
    try (TextTokenizer tokenizer = TextTokenizer.open(Path.of(args[0]), 16)) {
      System.out.println(Arrays.toString(tokenizer.encode("Hello, world").ids()));
    }
    System.out.println(String.join(" ", ProbeMaps.mapped("libtokenizers")));
  }
}
