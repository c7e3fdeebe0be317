package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.testing.SharedModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every config.json the tests hold (each family's random checkpoints, all-MiniLM-L6-v2) is read
 * by exactly one family, whatever order the registry lists them in.
 */
class ModelFamilyRegistryTest {
  @Test
  void exactlyOneFamilyReadsEachConfigInAnyOrder() throws Exception {
    List<Path> configs = new ArrayList<>();
    try (Stream<Path> found = Files.walk(Path.of("src/test/resources"))) {
      found.filter(p -> p.getFileName().toString().equals("config.json")).forEach(configs::add);
    }
    configs.add(SharedModels.miniLm().resolve("config.json"));
    List<String> familiesSeen = new ArrayList<>();
    Random random = new Random(5);
    for (Path file : configs) {
      JsonNode config = new ObjectMapper().readTree(file.toFile());
      if (!config.has("model_type")) {
        continue;
      }
      List<ModelFamily> reading = ModelFamily.ALL.stream().filter(f -> f.reads(config))
          .toList();
      if (reading.isEmpty()) {
        continue;   // a folder a test expects to be refused
      }
      assertEquals(1, reading.size(), file + " is read by "
          + reading.stream().map(ModelFamily::name).toList());
      for (int round = 0; round < 3; round++) {
        List<ModelFamily> shuffled = new ArrayList<>(ModelFamily.ALL);
        Collections.shuffle(shuffled, random);
        assertEquals(reading.get(0), ModelFamily.of(config, file, shuffled), file.toString());
      }
      familiesSeen.add(reading.get(0).name());
    }
    assertTrue(familiesSeen.containsAll(List.of("bert", "jinabert", "qwen3", "gemma3")),
        "configs of the families that share a model_type or are decoders: " + familiesSeen);
  }
}
