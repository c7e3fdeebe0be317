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

  /**
   * torch.save with pickle_protocol=4, as PyTorch writes it: read value for value as the
   * protocol 2 file; an int64 tensor is named as what it is.
   */
  @Test
  void aGenuineProtocolFourFileIsReadAndAnIntegerTensorNamed() throws Exception {
    Map<String, TorchStateDict.Tensor> two = TorchStateDict.read(
        CASES.resolve("colbert_linear.pt"));
    Map<String, TorchStateDict.Tensor> four = TorchStateDict.read(
        CASES.resolve("colbert_linear-protocol4.pt"));
    assertEquals(two.keySet(), four.keySet());
    for (String name : two.keySet()) {
      assertArrayEquals(two.get(name).shape(), four.get(name).shape(), name);
      assertArrayEquals(two.get(name).values(), four.get(name).values(), name);
    }
    WeightsException e = assertThrows(WeightsException.class,
        () -> TorchStateDict.read(CASES.resolve("int64.pt")));
    assertEquals(CASES.resolve("int64.pt") + ": tensor ids is of LongStorage, not floating "
        + "point (float32, float16, bfloat16 or float64), which no weight is", e.getMessage());
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

  /** A state dict of one tensor "w" of {@code type} from {@code offset}, shape and strides as given. */
  private static byte[] oneTensor(String module, String type, long offset,
      java.util.function.Consumer<PickleFiles> shapeAndStride) {
    return oneTensor(new PickleFiles(), module, type, offset, shapeAndStride);
  }

  private static byte[] oneTensor(PickleFiles pickle, String module, String type, long offset,
      java.util.function.Consumer<PickleFiles> shapeAndStride) {
    PickleFiles p = pickle.stateDict().op('(');
    p.tensor("w", module, type, offset, () -> shapeAndStride.accept(p));
    return p.op('u').stop();
  }

  private static void fourFloats(PickleFiles p) {
    p.number(4).op(0x85).number(1).op(0x85);
  }

  private WeightsException refused(String name, byte[] pickle, byte[] storage) throws Exception {
    Path file = PickleFiles.zip(tmp.resolve(name), pickle, storage);
    WeightsException e = assertThrows(WeightsException.class, () -> TorchStateDict.read(file));
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    return e;
  }

  @Test
  void aHandWrittenStateDictIsRead() throws Exception {
    byte[] values = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putFloat(1).putFloat(2).putFloat(-3).putFloat(0.5f).array();
    Path file = PickleFiles.zip(tmp.resolve("ok.pt"), oneTensor("torch", "FloatStorage", 0,
        TorchStateDictTest::fourFloats), values);
    assertArrayEquals(new float[] {1, 2, -3, 0.5f}, TorchStateDict.read(file).get("w").values());
  }

  /**
   * A small file whose storage inflates to 256 MB, for a tensor of 4 values: 16 bytes are read
   * (the whole storage was, before: a 0.6 MB file ended a JVM); a pickle that inflates past 16 MB
   * is refused unread.
   */
  @Test
  void whatAZipHoldsIsReadOnlyAsFarAsTheTensorsNeed() throws Exception {
    Path bomb = PickleFiles.zipWithZeros(tmp.resolve("bomb.pt"), oneTensor("torch",
        "FloatStorage", 0, TorchStateDictTest::fourFloats), 256L << 20);
    assertTrue(Files.size(bomb) < 2 << 20, "the file is small: " + Files.size(bomb));
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    assertArrayEquals(new float[4], TorchStateDict.read(bomb).get("w").values());
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < 32 << 20, "allocated " + allocated + " bytes to read 16");
    Path pickleBomb = PickleFiles.zip(tmp.resolve("pickle-bomb.pt"), new byte[32 << 20], null);
    WeightsException e = assertThrows(WeightsException.class,
        () -> TorchStateDict.read(pickleBomb));
    assertTrue(e.getMessage().endsWith("data.pkl is larger than 16 MB, which no tensor state "
        + "dict's is"), e.getMessage());
  }

  /** A list that holds itself, as a dict key; 200,000 lists in one another: one line each. */
  @Test
  void cyclicAndDeeplyNestedValuesAreRefusedWithoutWalkingThem() throws Exception {
    byte[] cyclic = new PickleFiles().stateDict().op('(', ']', 'q', 0, 'h', 0, 'a')
        .number(1).op('u').stop();
    assertTrue(refused("cyclic.pt", cyclic, null).getMessage().contains("a dict key that is a "
        + "list"));
    PickleFiles deep = new PickleFiles().global("torch._utils", "_rebuild_tensor_v2");
    for (int i = 0; i < 200_000; i++) {
      deep.op(']');
    }
    for (int i = 1; i < 200_000; i++) {
      deep.op('a');
    }
    byte[] nested = deep.op(0x85, 'R').stop();
    assertTrue(refused("deep.pt", nested, null).getMessage().contains("_rebuild_tensor_v2 with 1 "
        + "arguments, not a storage, an offset, a shape and strides"));
  }

  /** What torch.load refuses, and pickles damaged in their numbers, each in one line. */
  @Test
  void offsetsShapesAndStoragesAreCheckedBeforeUse() throws Exception {
    byte[] sixteen = new byte[16];
    Map<String, Object[]> cases = new java.util.LinkedHashMap<>();
    cases.put("huge-offset", new Object[] {oneTensor("torch", "FloatStorage", 1L << 62,
        TorchStateDictTest::fourFloats), "starts at value 4611686018427387904 of its storage"});
    cases.put("negative-offset", new Object[] {oneTensor("torch", "FloatStorage", -1,
        TorchStateDictTest::fourFloats), "starts at value -1 of its storage"});
    cases.put("dict-storage", new Object[] {oneTensor("collections", "OrderedDict", 0,
        TorchStateDictTest::fourFloats), "a persistent id that is not a storage (a list whose "
            + "type is a global collections OrderedDict)"});
    cases.put("int64", new Object[] {oneTensor("torch", "LongStorage", 0,
        TorchStateDictTest::fourFloats), "tensor w is of LongStorage, not floating point"});
    cases.put("string-shape", new Object[] {oneTensor("torch", "FloatStorage", 0,
        p -> p.text("4").op(0x85).number(1).op(0x85)), "tensor w has a shape entry that is a "
            + "string, not a whole number"});
    cases.put("short-stride", new Object[] {oneTensor("torch", "FloatStorage", 0,
        p -> p.number(2).number(2).op(0x86).number(1).op(0x85)), "tensor w has 2 axes and 1 "
            + "strides"});
    cases.put("negative-shape", new Object[] {oneTensor("torch", "FloatStorage", 0,
        p -> p.number(-1).op(0x85).number(1).op(0x85)), "tensor w has a shape entry that is "
            + "negative (-1), not a whole number"});
    cases.put("memoize-empty", new Object[] {new PickleFiles().op(0x94).stop(),
        "MEMOIZE on an empty stack"});
    cases.put("truncated", new Object[] {new byte[] {(byte) 0x80, 2, 'J', 1, 2},
        "the pickle ends inside an opcode"});
    for (Map.Entry<String, Object[]> c : cases.entrySet()) {
      String message = refused(c.getKey() + ".pt", (byte[]) c.getValue()[0], sixteen)
          .getMessage();
      assertTrue(message.contains((String) c.getValue()[1]), c.getKey() + ": " + message);
    }
  }

  /** Protocol 4 (STACK_GLOBAL names the globals) is read; the legacy bare pickle is named. */
  @Test
  void protocolFourIsReadAndTheLegacyFormatIsNamed() throws Exception {
    byte[] fourFloats = new byte[16];
    byte[] protocol4 = oneTensor(new PickleFiles(4), "torch", "FloatStorage", 0,
        TorchStateDictTest::fourFloats);
    Path file = PickleFiles.zip(tmp.resolve("protocol4.pt"), protocol4, fourFloats);
    assertArrayEquals(new float[4], TorchStateDict.read(file).get("w").values());
    Path legacy = tmp.resolve("legacy.pt");
    Files.write(legacy, new byte[] {(byte) 0x80, 2, (byte) 0x8a, 10});
    WeightsException e = assertThrows(WeightsException.class, () -> TorchStateDict.read(legacy));
    assertTrue(e.getMessage().contains("is a torch.save file in the legacy format"),
        e.getMessage());
  }
}
