package io.corpus.encoder.io;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobPattern;
import org.apache.hadoop.fs.Path;

/**
 * Output paths that replacing could destroy what is not the job's own, refused before Spark
 * starts, in one line naming both paths: the root of a file system, a top-level folder of a local
 * disk or HDFS ({@code /tmp}, {@code /home}) and anything inside the system's own folders
 * ({@code /usr}, {@code /etc}, …), the user's home or a folder holding it, and any path that is,
 * holds or lies inside a path the job reads (its input, its model). A read path may be a glob, as
 * Spark reads one ({@code /data/d*}): the output is then compared with the pattern component by
 * component, and on a local disk with every path the pattern matches. Local paths are compared
 * after following symbolic links, so a link to the input is the input. Other paths are compared as
 * written, scheme and authority included: no remote file system is opened (an {@code s3a://} path
 * needs its credentials from Spark's session, which has not started yet). A path without a scheme
 * is taken as local. Driver only.
 */
public final class OutputPaths {
  /** Folders of the operating system: no output is written at or inside them. */
  private static final Set<String> SYSTEM_FOLDERS = Set.of("/bin", "/boot", "/dev", "/etc",
      "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run", "/sbin", "/sys", "/usr");
  /** Schemes whose top-level folders are shared by everyone ({@code /tmp}, {@code /user}). */
  private static final Set<String> SHARED_TOP_LEVEL = Set.of("file", "hdfs", "viewfs",
      "webhdfs");
  private static final String OWN_FOLDER = ": the job replaces its output path whole, so name a "
      + "folder of its own";

  private OutputPaths() {}

  /** Whether Spark reads {@code path} as a glob pattern (its own test, SparkHadoopUtil's). */
  public static boolean isGlob(String path) {
    return path.chars().anyMatch(c -> "{}[]*?\\".indexOf(c) >= 0);
  }

  /**
   * @param output the output path as configured
   * @param reads what the job reads, by setting name ({@code input.path -> /data/docs})
   */
  public static void check(String output, Map<String, String> reads) {
    Location out = Location.of(output);
    if (out.isRoot()) {
      throw new IllegalArgumentException("output.path " + output + " is the root of its file "
          + "system" + OWN_FOLDER);
    }
    Location home = Location.of(System.getProperty("user.home"));
    if (out.contains(home)) {
      throw new IllegalArgumentException("output.path " + output + (out.equals(home) ? " is"
          : " holds") + " the home folder " + home.path() + OWN_FOLDER);
    }
    checkSystemFolders(output, out);
    for (Map.Entry<String, String> read : reads.entrySet()) {
      String value = read.getValue();
      if (value == null || value.isBlank()) {
        continue;
      }
      String relation = isGlob(value) ? globRelation(out, value) : relation(out,
          Location.of(value));
      if (relation != null) {
        throw new IllegalArgumentException("output.path " + output + " " + relation + " "
            + read.getKey() + " " + value + ": the output must be a folder apart from what the "
            + "job reads");
      }
    }
    refuseLink(output);
  }

  /**
   * Refuses a local output path that is a symbolic link, dangling or not: the job replaces the
   * path whole, which would put a real folder in place of the link, away from where it points.
   */
  private static void refuseLink(String output) {
    URI uri = new Path(output).toUri();
    if (uri.getScheme() != null && !uri.getScheme().equals("file")) {
      return;
    }
    java.nio.file.Path local = java.nio.file.Path.of(uri.getPath());
    if (java.nio.file.Files.isSymbolicLink(local)) {
      String target;
      try {
        target = String.valueOf(java.nio.file.Files.readSymbolicLink(local));
      } catch (IOException e) {
        target = "?";
      }
      throw new IllegalArgumentException("output.path " + output + " is a symbolic link (to "
          + target + (java.nio.file.Files.exists(local) ? "" : ", which does not exist")
          + "): the job replaces its output path whole, and would put a folder in place of "
          + "the link; name the folder itself as output.path");
    }
  }

  private static void checkSystemFolders(String output, Location out) {
    if (!SHARED_TOP_LEVEL.contains(out.scheme())) {
      return;
    }
    if (out.path().getNameCount() == 1) {
      throw new IllegalArgumentException("output.path " + output + " is a top-level folder of "
          + "its file system, which other programs share" + OWN_FOLDER + " inside one ("
          + out.path().resolve("vectors") + ")");
    }
    if (out.scheme().equals("file")) {
      String top = "/" + out.path().getName(0);
      if (SYSTEM_FOLDERS.contains(top)) {
        throw new IllegalArgumentException("output.path " + output + (out.path().getNameCount()
            == 1 ? " is" : " lies inside") + " the system folder " + top + OWN_FOLDER);
      }
    }
  }

  /** "is", "holds" or "lies inside" when {@code out} is that to {@code in}; else null. */
  private static String relation(Location out, Location in) {
    return out.equals(in) ? "is" : out.contains(in) ? "holds" : in.contains(out) ? "lies inside"
        : null;
  }

  /**
   * How {@code out} stands to what the glob {@code pattern} may match: "is" when the pattern
   * matches it, "lies inside" when it matches a folder holding it, "holds" when it is a folder
   * some match could lie inside; on a local disk also to each path the pattern matches now.
   */
  private static String globRelation(Location out, String pattern) {
    List<String> expanded;
    try {
      // Hadoop expands braces that hold a / ({a,../b/c}) into whole patterns before it globs.
      expanded = org.apache.hadoop.fs.GlobExpander.expand(pattern);
    } catch (IOException e) {
      throw new IllegalArgumentException("input.path " + pattern + " is not a glob Hadoop can "
          + "read: " + e.getMessage());
    }
    for (String one : expanded) {
      String relation = expandedGlobRelation(out, one);
      if (relation != null) {
        return relation;
      }
    }
    return null;
  }

  private static String expandedGlobRelation(Location out, String pattern) {
    Location glob = Location.ofPattern(pattern);
    if (glob.scheme().equals(out.scheme()) && glob.authority().equals(out.authority())) {
      int shared = Math.min(glob.path().getNameCount(), out.path().getNameCount());
      boolean matches = true;
      for (int i = 0; i < shared && matches; i++) {
        matches = new GlobPattern(glob.path().getName(i).toString())
            .matches(out.path().getName(i).toString());
      }
      if (matches) {
        int n = glob.path().getNameCount();
        int m = out.path().getNameCount();
        return n == m ? "is matched by" : m > n ? "lies inside a match of" : "may hold matches of";
      }
    }
    for (Location match : localMatches(pattern)) {
      String relation = relation(out, match);
      if (relation != null) {
        return relation + " " + match.path() + ", a match of";
      }
    }
    return null;
  }

  /** What a local glob matches on disk now; nothing for other schemes. */
  private static List<Location> localMatches(String pattern) {
    List<Location> matches = new ArrayList<>();
    Path path = new Path(pattern);
    URI uri = path.toUri();
    if (uri.getScheme() != null && !uri.getScheme().equals("file")) {
      return matches;
    }
    try {
      FileStatus[] found = FileSystem.getLocal(new Configuration()).globStatus(path);
      for (FileStatus status : found == null ? new FileStatus[0] : found) {
        matches.add(Location.of(status.getPath().toUri().getPath()));
      }
    } catch (IOException | RuntimeException e) {
      // unreadable folders: the pattern check above still holds
    }
    return matches;
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

    /** A glob pattern: the links of its literal folders followed, its pattern part as written. */
    static Location ofPattern(String pattern) {
      URI uri = new Path(pattern).toUri();
      java.nio.file.Path written = java.nio.file.Path.of(uri.getPath()).toAbsolutePath()
          .normalize();
      int literal = 0;
      while (literal < written.getNameCount() && !isGlob(written.getName(literal).toString())) {
        literal++;
      }
      java.nio.file.Path prefix = literal == 0 ? written.getRoot()
          : written.getRoot().resolve(written.subpath(0, literal));
      java.nio.file.Path rest = literal == written.getNameCount() ? null
          : written.subpath(literal, written.getNameCount());
      if (uri.getScheme() == null || uri.getScheme().equals("file")) {
        java.nio.file.Path followed = followLinks(prefix);
        return new Location("file", "", rest == null ? followed : followed.resolve(rest));
      }
      return new Location(uri.getScheme(), String.valueOf(uri.getAuthority()), written);
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
