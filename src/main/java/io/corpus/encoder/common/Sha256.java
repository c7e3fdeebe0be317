package io.corpus.encoder.common;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256, which every JVM has: a digest to feed, or the hex of some bytes' digest. */
public final class Sha256 {
  private Sha256() {}

  /** A fresh SHA-256 digest. */
  public static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }

  /** The lower-case hex of {@code bytes}' SHA-256. */
  public static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(digest().digest(bytes));
  }
}
