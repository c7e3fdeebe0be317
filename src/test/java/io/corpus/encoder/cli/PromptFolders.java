package io.corpus.encoder.cli;

import io.corpus.encoder.testing.SharedModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** all-MiniLM-L6-v2 as a folder that declares prompts, for the tests of prompts. */
final class PromptFolders {
  /** A query and a passage prompt, the passage the default. */
  static final String QUERY_AND_PASSAGE = "{\"prompts\": {\"query\": \"query: \", \"passage\": "
      + "\"passage: \"}, \"default_prompt_name\": \"passage\", \"similarity_fn_name\": "
      + "\"cosine\"}";

  private PromptFolders() {}

  /**
   * A copy of all-MiniLM-L6-v2 in {@code dir/name} (its files linked) whose
   * config_sentence_transformers.json is {@code prompts}; include_prompt as given (the real
   * folder's, if true).
   */
  static Path miniLm(Path dir, String name, boolean includePrompt, String prompts)
      throws Exception {
    Path model = SharedModels.miniLm();
    Path copy = Files.createDirectories(dir.resolve(name));
    try (Stream<Path> files = Files.list(model)) {
      for (Path f : files.filter(f -> !f.getFileName().toString().equals("1_Pooling"))
          .toList()) {
        Files.createSymbolicLink(copy.resolve(f.getFileName()), f);
      }
    }
    Files.createDirectories(copy.resolve("1_Pooling"));
    String pooling = Files.readString(model.resolve("1_Pooling/config.json"));
    Files.writeString(copy.resolve("1_Pooling/config.json"), includePrompt ? pooling
        : pooling.replaceFirst("\\{", "{\"include_prompt\": false,"));
    Files.writeString(copy.resolve("config_sentence_transformers.json"), prompts);
    return copy;
  }
}
