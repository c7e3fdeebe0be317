package io.corpus.encoder.weights;

import io.corpus.encoder.common.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What identifies a model's outputs, for an update that reuses them: SHA-256 over the name,
 * length and bytes of every file the model is read from. For a folder: its top-level JSON files
 * (config, tokenizer, sentence-transformers settings and prompts), bge-m3's two heads, its weights (the safetensors
 * file or its shards) and the sentence-transformers module folders ({@code 1_Pooling},
 * {@code 2_Dense}, …, and every other path modules.json names), the task adapter merged
 * ({@code adapters/<model.task>/}), links followed; other folders a
 * Hub download carries ({@code onnx/}, {@code openvino/}) are not read and not hashed. For a
 * weights file: the file.
 */
public final class ModelFingerprint {
  private static final Pattern MODULE_FOLDER = Pattern.compile("\\d+_.+");
  private static final int BUFFER = 1 << 20;

  private ModelFingerprint() {}

  /** "sha256:" and the hex digest of the folder's files, in the order of their names. */
  public static String ofFolder(ModelFolder model) {
    Path folder = model.folder();
    List<Path> files = new ArrayList<>();
    try (Stream<Path> top = Files.list(folder)) {
      top.sorted().forEach(p -> {
        String name = p.getFileName().toString();
        if (Files.isRegularFile(p) && (name.endsWith(".json")
            || name.equals(ModelFolder.SPARSE_LINEAR) || name.equals(ModelFolder.COLBERT_LINEAR))) {
          files.add(p);
        } else if (Files.isDirectory(p) && MODULE_FOLDER.matcher(name).matches()) {
          addModule(p, files);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the model folder " + folder, e);
    }
    model.modulePaths().stream().filter(Files::isDirectory).forEach(p -> addModule(p, files));
    model.task().ifPresent(task -> addModule(task.folder(), files));   // the merged adapter
    model.weightFiles().stream().filter(f -> !files.contains(f)).sorted().forEach(files::add);
    return digest(folder, files);
  }

  /** A module folder's files, links followed (a linked {@code 2_Dense} is hashed as its target). */
  private static void addModule(Path module, List<Path> files) {
    try (Stream<Path> inside = Files.walk(module, java.nio.file.FileVisitOption.FOLLOW_LINKS)) {
      inside.filter(Files::isRegularFile).sorted().filter(f -> !files.contains(f))
          .forEach(files::add);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + module, e);
    }
  }

  /** "sha256:" and the hex digest of one weights file. */
  public static String ofFile(Path file) {
    return digest(file.toAbsolutePath().getParent(), List.of(file.toAbsolutePath()));
  }

  private static String digest(Path base, List<Path> files) {
    MessageDigest sha = Sha256.digest();
    byte[] buffer = new byte[BUFFER];
    for (Path file : files) {
      try (InputStream in = Files.newInputStream(file)) {
        String name = base.toAbsolutePath().relativize(file.toAbsolutePath()).toString();
        sha.update((name + "\0" + Files.size(file) + "\0").getBytes(StandardCharsets.UTF_8));
        for (int n; (n = in.read(buffer)) > 0; ) {
          sha.update(buffer, 0, n);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + file + " to fingerprint the model", e);
      }
    }
    return "sha256:" + HexFormat.of().formatHex(sha.digest());
  }
}
