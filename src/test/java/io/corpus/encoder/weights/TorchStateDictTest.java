package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * torch.save files read as data (src/test/resources/torch-pt-cases, made by
 * jobs/samples/make_torch_pt_cases.py with Debian's PyTorch): bge-m3's two heads in float32 and
 * bfloat16 read value for value, and files that would run code refused before anything runs.
 */
class TorchStateDictTest {
  private static final Path CASES = Path.of("src/test/resources/torch-pt-cases");

  @TempDir
  Path tmp;

  @Test
  void bgeM3sHeadsAreReadValueForValue() throws Exception {
    JsonNode expected = new ObjectMapper().readTree(CASES.resolve("expected.json").toFile());
    for (String head : List.of("colbert_linear", "sparse_linear")) {
      Map<String, TorchStateDict.Tensor> tensors =
          TorchStateDict.read(CASES.resolve(head + ".pt"));
      assertEquals(List.of("weight", "bias"), List.copyOf(tensors.keySet()), head);
      for (Map.Entry<String, TorchStateDict.Tensor> e : tensors.entrySet()) {
        JsonNode want = expected.get(head + "." + e.getKey());
        long[] shape = new long[want.get("shape").size()];
        for (int d = 0; d < shape.length; d++) {
          shape[d] = want.get("shape").get(d).asLong();
        }
        assertArrayEquals(shape, e.getValue().shape(), head + "." + e.getKey());
        float[] values = new float[want.get("values").size()];
        for (int i = 0; i < values.length; i++) {
          values[i] = (float) want.get("values").get(i).asDouble();
        }
        assertArrayEquals(values, e.getValue().values(), head + "." + e.getKey());
      }
    }
  }

  /** A state dict holding an object whose __reduce__ calls os.system or eval: nothing runs. */
  @Test
  void aPlantedCallIsRefusedBeforeAnythingRuns() {
    for (String[] c : new String[][] {{"planted-system.pt", "global posix system"},
        {"planted-eval.pt", "global __builtin__ eval"}}) {
      WeightsException e = assertThrows(WeightsException.class,
          () -> TorchStateDict.read(CASES.resolve(c[0])));
      assertTrue(e.getMessage().contains("is refused before anything in it runs: " + c[1]
          + " is not one a tensor state dict uses"), e.getMessage());
      assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
    assertFalse(Files.exists(Path.of("/tmp/planted-ran")), "the planted command ran");
  }

  /** An opcode a state dict never uses (INST, which builds any class by name) is refused. */
  @Test
  void anOpcodeAStateDictDoesNotUseIsRefused() throws Exception {
    Path file = tmp.resolve("inst.pt");
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
      zip.putNextEntry(new ZipEntry("inst/data.pkl"));
      OutputStream out = zip;
      out.write(new byte[] {(byte) 0x80, 2, '('});
      out.write("ios\nsystem\n.".getBytes(StandardCharsets.US_ASCII));
      zip.closeEntry();
    }
    WeightsException e = assertThrows(WeightsException.class, () -> TorchStateDict.read(file));
    assertTrue(e.getMessage().contains("opcode 0x69 is not one a tensor state dict uses"),
        e.getMessage());
  }
}
