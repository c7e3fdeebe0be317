package io.corpus.encoder.text;

import ai.djl.util.Platform;
import io.corpus.encoder.common.NativeCache;
import io.corpus.encoder.common.NativeFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hugging Face's native tokenizers library, as DJL's jar carries it, loaded only from a copy the
 * job made and checked. Left alone, DJL loads whatever file sits at its cache path
 * ({@code ~/.djl.ai}, or {@code DJL_CACHE_DIR} / {@code ENGINE_CACHE_DIR}, or a shared
 * java.io.tmpdir when the home folder is not writable) without looking at it. So before the first
 * tokenizer, the library is extracted into the job's cache ({@link NativeCache}) and DJL is
 * pointed at it with its own override, the {@code RUST_LIBRARY_PATH} property. A
 * {@code RUST_LIBRARY_PATH} environment variable, which DJL prefers, is accepted only when the
 * file it names is trusted (this user's, in a folder only this user can write, equal to the jar's
 * copy); otherwise the tokenizer refuses to start, saying why.
 */
final class TokenizerLibrary {
  private static final Logger LOG = LoggerFactory.getLogger(TokenizerLibrary.class);
  private static final String OVERRIDE = "RUST_LIBRARY_PATH";
  private static boolean prepared;

  private TokenizerLibrary() {}

  /** Makes sure DJL will load a checked copy; once per JVM, before the first tokenizer. */
  static synchronized void prepare() {
    if (prepared) {
      return;
    }
    Platform platform = Platform.detectPlatform("tokenizers");
    String name = System.mapLibraryName("tokenizers");
    String os = platform.getOsPrefix() + "-" + platform.getOsArch();
    String resource = "native/lib/" + os + "/" + platform.getFlavor() + "/" + name;
    ClassLoader loader = TokenizerLibrary.class.getClassLoader();
    if (loader.getResource(resource) == null) {
      throw new IllegalStateException("DJL's tokenizers jar carries no native library for "
          + os + " (" + resource + ")");
    }
    String fromEnvironment = System.getenv(OVERRIDE);
    if (fromEnvironment != null && !fromEnvironment.isEmpty()) {
      Path file = Path.of(fromEnvironment);
      if (Files.isDirectory(file)) {
        file = file.resolve(name);
      }
      Optional<String> untrusted = NativeFiles.untrusted(file, loader, resource);
      if (untrusted.isPresent()) {
        throw new IllegalStateException("Not loading the tokenizers library that the environment "
            + "variable " + OVERRIDE + " names: " + untrusted.get() + ". Unset it, and the job "
            + "uses a checked copy of its own");
      }
    } else {
      Path library = NativeCache.copies(loader, "tokenizers-" + os, Map.of(name, resource))
          .resolve(name);
      System.setProperty(OVERRIDE, library.toString());
      LOG.debug("Hugging Face tokenizers library: {}", library);
    }
    prepared = true;
  }
}
