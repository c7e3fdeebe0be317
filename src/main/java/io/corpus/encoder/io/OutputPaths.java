package io.corpus.encoder.io;

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import org.apache.hadoop.fs.Path;

/**
 * Output paths that replacing could destroy what is not the job's own, refused before Spark
 * starts, in one line naming both paths: the root of a file system, the user's home or a folder
 * holding it, and any path that is, holds or lies inside a path the job reads (its input, its
 * model). Local paths are compared after following symbolic links, so a link to the input is
 * the input. Paths are compared as written, scheme and authority included: no file system is
 * opened (an {@code s3a://} path needs its credentials from Spark's session, which has not started
 * yet). A path without a scheme is taken as local. Driver only.
 */
public final class OutputPaths {
  private OutputPaths() {}

  /**
   * @param output the output path as configured
   * @param reads what the job reads, by setting name ({@code input.path -> /data/docs})
   */
  public static void check(String output, Map<String, String> reads) {
    Location out = Location.of(output);
    if (out.isRoot()) {
      throw new IllegalArgumentException("output.path " + output + " is the root of its file "
          + "system: the job replaces its output path whole, so name a folder of its own");
    }
    Location home = Location.of(System.getProperty("user.home"));
    if (out.contains(home)) {
      throw new IllegalArgumentException("output.path " + output + (out.equals(home) ? " is"
          : " holds") + " the home folder " + home.path() + ": the job replaces its output path "
          + "whole, so name a folder of its own");
    }
    for (Map.Entry<String, String> read : reads.entrySet()) {
      if (read.getValue() == null || read.getValue().isBlank()) {
        continue;
      }
      Location in = Location.of(read.getValue());
      String relation = out.equals(in) ? "is" : out.contains(in) ? "holds"
          : in.contains(out) ? "lies inside" : null;
      if (relation != null) {
        throw new IllegalArgumentException("output.path " + output + " " + relation + " "
            + read.getKey() + " " + read.getValue() + ": the output must be a folder apart from "
            + "what the job reads");
      }
    }
  }

  /** A path as its file system sees it: scheme, authority and absolute path, links followed. */
  private record Location(String scheme, String authority, java.nio.file.Path path) {
    static Location of(String value) {
      URI uri = new Path(value).toUri();
      if (uri.getScheme() == null || uri.getScheme().equals("file")) {
        return new Location("file", "", followLinks(java.nio.file.Path.of(uri.getPath())));
      }
      return new Location(uri.getScheme(), String.valueOf(uri.getAuthority()),
          java.nio.file.Path.of(uri.getPath()).normalize());
    }

    boolean isRoot() {
      return path.getNameCount() == 0;
    }

    /** Whether {@code other} is this path or lies inside it. */
    boolean contains(Location other) {
      return scheme.equals(other.scheme) && authority.equals(other.authority)
          && other.path.startsWith(path);
    }

    /** The longest existing prefix with its links resolved, then the rest as written. */
    private static java.nio.file.Path followLinks(java.nio.file.Path path) {
      java.nio.file.Path absolute = path.toAbsolutePath().normalize();
      java.nio.file.Path existing = absolute;
      while (existing != null && !java.nio.file.Files.exists(existing)) {
        existing = existing.getParent();
      }
      if (existing == null) {
        return absolute;
      }
      try {
        return existing.toRealPath().resolve(existing.relativize(absolute)).normalize();
      } catch (IOException e) {
        return absolute;
      }
    }
  }
}
