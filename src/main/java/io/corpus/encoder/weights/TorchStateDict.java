package io.corpus.encoder.weights;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * A tensor state dict as {@code torch.save} writes it (a zip of {@code data.pkl} and one file of
 * raw little-endian values per storage), read <em>without running pickle code</em>: a small
 * reader of the pickle opcodes such a file uses, which knows four callables
 * ({@code collections.OrderedDict}, {@code torch._utils._rebuild_tensor_v2} and the storage
 * types) and refuses, in one line naming what it found, any other global or opcode before
 * anything is built. A {@code .pt} file is a program; this reads it as data only.
 *
 * <p>Nothing is taken on trust: the pickle is read up to {@link #MOST_PICKLE_BYTES}, a storage
 * only as far as the tensor the pickle declares needs (so a small file that inflates to
 * gigabytes is refused after that many bytes), every offset, shape and stride is checked before
 * it is used, and nothing read is hashed or printed deeply (a list that holds itself, or 200,000
 * lists in one another, is refused or named by its type, not walked).
 */
public final class TorchStateDict {
  /**
   * One tensor, row-major.
   *
   * @param shape the size of each axis
   * @param values its values, widened to float
   */
  public record Tensor(long[] shape, float[] values) {}

  /** The storage types, by their element width in bytes; only the float ones are read. */
  private static final Map<String, Integer> STORAGES = Map.of("FloatStorage", 4,
      "HalfStorage", 2, "BFloat16Storage", 2, "DoubleStorage", 8, "LongStorage", 8,
      "IntStorage", 4, "ShortStorage", 2, "CharStorage", 1, "ByteStorage", 1, "BoolStorage", 1);
  private static final Set<String> FLOAT_STORAGES = Set.of("FloatStorage", "HalfStorage",
      "BFloat16Storage", "DoubleStorage");
  private static final Set<String> CALLS = Set.of("collections OrderedDict",
      "torch._utils _rebuild_tensor_v2");
  /** The most bytes a state dict's pickle may have (a head's is a few hundred). */
  static final int MOST_PICKLE_BYTES = 16 << 20;
  /** The most axes a tensor may have. */
  private static final int MOST_AXES = 8;
  private static final Object MARK = new Object();

  private record Global(String name) {}

  private record Storage(String key, String type) {}

  private record Rebuilt(Storage storage, long offset, List<Object> shape, List<Object> stride) {}

  private TorchStateDict() {}

  /** The tensors of {@code file} by name, in the file's order; a refusal names what is wrong. */
  public static Map<String, Tensor> read(Path file) {
    refuseUnzipped(file);
    try (ZipFile zip = new ZipFile(file.toFile())) {
      ZipEntry pickle = zip.stream().filter(e -> e.getName().endsWith("data.pkl")).findFirst()
          .orElseThrow(() -> new WeightsException(file + " is not a torch.save zip: it has no "
              + "data.pkl (an older torch.save format, which is not read)"));
      String root = pickle.getName().substring(0, pickle.getName().length() - "data.pkl".length());
      byte[] pickled = bounded(zip, pickle, MOST_PICKLE_BYTES);
      if (pickled.length > MOST_PICKLE_BYTES) {
        throw new WeightsException(file + ": its data.pkl is larger than "
            + (MOST_PICKLE_BYTES >> 20) + " MB, which no tensor state dict's is");
      }
      Object top = new Reader(file, pickled).run();
      if (!(top instanceof Map<?, ?> map)) {
        throw new WeightsException(file + " holds a " + describe(top) + ", not a state dict");
      }
      Map<String, Tensor> tensors = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String name) || !(e.getValue() instanceof Rebuilt t)) {
          throw new WeightsException(file + ": entry " + e.getKey() + " is a "
              + describe(e.getValue()) + ", not a tensor");
        }
        ZipEntry data = zip.getEntry(root + "data/" + t.storage().key());
        if (data == null) {
          throw new WeightsException(file + ": tensor " + name + "'s storage "
              + t.storage().key() + " is missing");
        }
        tensors.put(name, tensor(file, name, t, zip, data));
      }
      return tensors;
    } catch (IOException e) {
      throw new WeightsException("Cannot read " + file + ": " + e.getMessage());
    }
  }

  /**
   * Refuses, in one line, a file that is not a zip: the legacy torch.save format (a bare pickle,
   * PyTorch before 1.6 or {@code _use_new_zipfile_serialization=False}), or no torch.save at all.
   */
  private static void refuseUnzipped(Path file) {
    byte[] head = new byte[4];
    int read;
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
      read = in.readNBytes(head, 0, 4);
    } catch (IOException e) {
      throw new WeightsException("Cannot read " + file + ": " + e.getMessage());
    }
    if (read == 4 && head[0] == 'P' && head[1] == 'K' && head[2] == 3 && head[3] == 4) {
      return;
    }
    throw new WeightsException(read > 0 && (head[0] & 0xff) == 0x80
        ? file + " is a torch.save file in the legacy format (a bare pickle, written by PyTorch "
            + "before 1.6 or with _use_new_zipfile_serialization=False), which is not read; "
            + "save it again with a recent PyTorch: torch.save(torch.load(f), f)"
        : file + " is not a torch.save file: it is not a zip archive");
  }

  /** Up to {@code most} bytes of an entry, and one more when it has more. */
  private static byte[] bounded(ZipFile zip, ZipEntry entry, int most) throws IOException {
    try (java.io.InputStream in = zip.getInputStream(entry)) {
      return in.readNBytes(most + 1);
    }
  }

  /**
   * A tensor's values: its shape and strides checked, then exactly the bytes it needs read from
   * its storage, which must hold them (never the whole storage: its size is not trusted).
   */
  private static Tensor tensor(Path file, String name, Rebuilt t, ZipFile zip, ZipEntry data)
      throws IOException {
    String type = t.storage().type();
    if (!FLOAT_STORAGES.contains(type)) {
      throw new WeightsException(file + ": tensor " + name + " is of " + type + ", not "
          + "floating point (float32, float16, bfloat16 or float64), which no weight is");
    }
    int axes = t.shape().size();
    if (axes > MOST_AXES || t.stride().size() != axes) {
      throw new WeightsException(file + ": tensor " + name + " has " + axes + " axes and "
          + t.stride().size() + " strides");
    }
    long[] shape = new long[axes];
    long count = 1;
    for (int d = 0; d < axes; d++) {
      shape[d] = whole(file, name, "shape", t.shape().get(d));
      if (shape[d] > 0 && count > Integer.MAX_VALUE / shape[d]) {
        throw new WeightsException(file + ": tensor " + name + " declares more than "
            + Integer.MAX_VALUE + " values");
      }
      count *= shape[d];
    }
    long expected = 1;
    for (int d = axes - 1; d >= 0; d--) {
      long stride = whole(file, name, "stride", t.stride().get(d));
      if (shape[d] > 1 && stride != expected) {
        throw new WeightsException(file + ": tensor " + name + " is not contiguous (stride "
            + stride + " on axis " + d + " where " + expected + " would be)");
      }
      expected *= Math.max(1, shape[d]);
    }
    int width = STORAGES.get(type);
    if (t.offset() < 0 || t.offset() > Integer.MAX_VALUE) {
      throw new WeightsException(file + ": tensor " + name + " starts at value " + t.offset()
          + " of its storage, which no storage of a readable size has");
    }
    long needed = (t.offset() + count) * width;
    if (needed > Integer.MAX_VALUE - 8) {
      throw new WeightsException(file + ": tensor " + name + " needs " + needed + " bytes of "
          + "its storage, more than one array holds");
    }
    byte[] bytes;
    try (java.io.InputStream in = zip.getInputStream(data)) {
      bytes = in.readNBytes((int) needed);
    }
    if (bytes.length < needed) {
      throw new WeightsException(file + ": tensor " + name + " needs " + count + " values from "
          + t.offset() + " but its storage holds " + bytes.length / width);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    float[] values = new float[(int) count];
    for (int i = 0; i < values.length; i++) {
      int at = (int) ((t.offset() + i) * width);
      values[i] = switch (type) {
        case "FloatStorage" -> b.getFloat(at);
        case "DoubleStorage" -> (float) b.getDouble(at);
        case "HalfStorage" -> HalfFloats.halfToFloat(b.getShort(at));
        default -> Float.intBitsToFloat((b.getShort(at) & 0xffff) << 16);
      };
    }
    return new Tensor(shape, values);
  }

  /** A shape or stride entry: a whole number, not negative. */
  private static long whole(Path file, String name, String what, Object value) {
    if (!(value instanceof Long v) || v < 0) {
      throw new WeightsException(file + ": tensor " + name + " has a " + what + " entry that "
          + "is " + (value instanceof Long v ? "negative (" + v + ")" : "a " + describe(value))
          + ", not a whole number");
    }
    return v;
  }

  /** What a value is, by its Python type: never its contents, which may hold themselves. */
  private static String describe(Object o) {
    return o == null || o == NoneValue.NONE ? "None" : o instanceof Global g ? "global " + g.name()
        : o instanceof List<?> ? "list" : o instanceof Map<?, ?> ? "dict"
        : o instanceof String ? "string" : o instanceof Long ? "integer"
        : o instanceof Double ? "float" : o instanceof Boolean ? "bool"
        : o instanceof Storage ? "storage" : o instanceof Rebuilt ? "tensor"
        : o.getClass().getSimpleName();
  }

  /** The pickle machine, limited to what a tensor state dict needs. */
  private static final class Reader {
    private final Path file;
    private final ByteBuffer in;
    private final Deque<Object> stack = new ArrayDeque<>();
    private final Map<Long, Object> memo = new HashMap<>();

    Reader(Path file, byte[] pickle) {
      this.file = file;
      this.in = ByteBuffer.wrap(pickle).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The pickle's value; a truncated opcode is refused as the rest are. */
    Object run() {
      try {
        return execute();
      } catch (java.nio.BufferUnderflowException e) {
        throw refuse("the pickle ends inside an opcode");
      }
    }

    private Object execute() {
      while (true) {
        if (!in.hasRemaining()) {
          throw refuse("the pickle ends before its STOP");
        }
        int op = in.get() & 0xff;
        switch (op) {
          case 0x80 -> in.get();                                     // PROTO
          case 0x95 -> in.getLong();                                 // FRAME
          case 'c' -> stack.push(global(line() + " " + line()));     // GLOBAL
          case 0x93 -> {                                             // STACK_GLOBAL
            Object name = pop();
            Object module = pop();
            if (!(module instanceof String m) || !(name instanceof String n)) {
              throw refuse("a STACK_GLOBAL of a " + describe(module) + " and a "
                  + describe(name));
            }
            stack.push(global(m + " " + n));
          }
          case 'q' -> memo.put((long) (in.get() & 0xff), top("BINPUT"));
          case 'r' -> memo.put(in.getInt() & 0xffffffffL, top("LONG_BINPUT"));
          case 0x94 -> memo.put((long) memo.size(), top("MEMOIZE"));
          case 'h' -> stack.push(memo(in.get() & 0xff));             // BINGET
          case 'j' -> stack.push(memo(in.getInt() & 0xffffffffL));   // LONG_BINGET
          case '(' -> stack.push(MARK);
          case ')' -> stack.push(List.of());                         // EMPTY_TUPLE
          case '}' -> stack.push(new LinkedHashMap<>());             // EMPTY_DICT
          case ']' -> stack.push(new ArrayList<>());                 // EMPTY_LIST
          case 'N' -> stack.push(NoneValue.NONE);
          case 0x88 -> stack.push(Boolean.TRUE);
          case 0x89 -> stack.push(Boolean.FALSE);
          case 'K' -> stack.push((long) (in.get() & 0xff));          // BININT1
          case 'M' -> stack.push((long) (in.getShort() & 0xffff));   // BININT2
          case 'J' -> stack.push((long) in.getInt());                // BININT
          case 0x8a -> stack.push(long1());                          // LONG1
          case 'G' -> stack.push(Double.longBitsToDouble(Long.reverseBytes(in.getLong())));
          case 'X' -> stack.push(text(in.getInt()));                 // BINUNICODE
          case 0x8c -> stack.push(text(in.get() & 0xff));            // SHORT_BINUNICODE
          case 't' -> stack.push(List.copyOf(popToMark()));          // TUPLE
          case 0x85 -> stack.push(List.of(pop()));                   // TUPLE1
          case 0x86 -> {                                             // TUPLE2
            Object b = pop();
            stack.push(List.of(pop(), b));
          }
          case 0x87 -> {                                             // TUPLE3
            Object c = pop();
            Object b = pop();
            stack.push(List.of(pop(), b, c));
          }
          case 'Q' -> stack.push(storage(pop()));                    // BINPERSID
          case 'R' -> {                                              // REDUCE
            Object args = pop();
            stack.push(reduce(pop(), args));
          }
          case 'b' -> pop();                                         // BUILD: a dict's state
          case 's' -> {                                              // SETITEM
            Object value = pop();
            Object key = pop();
            dict(top("SETITEM")).put(key(key), value);
          }
          case 'u' -> {                                              // SETITEMS
            List<Object> items = popToMark();
            Map<Object, Object> d = dict(top("SETITEMS"));
            for (int i = 0; i + 1 < items.size(); i += 2) {
              d.put(key(items.get(i)), items.get(i + 1));
            }
          }
          case 'a' -> {                                              // APPEND
            Object item = pop();
            list(pop(), List.of(item));
          }
          case 'e' -> {                                              // APPENDS
            List<Object> items = popToMark();
            list(pop(), items);
          }
          case '.' -> {
            return unwrap(pop());
          }
          default -> throw refuse(String.format("opcode 0x%02x is not one a tensor state dict "
              + "uses", op));
        }
      }
    }

    private void list(Object target, List<Object> items) {
      if (!(target instanceof List<?>)) {
        throw refuse("APPEND to a " + describe(target));
      }
      @SuppressWarnings("unchecked")
      List<Object> l = (List<Object>) target;
      l.addAll(items);
      stack.push(l);
    }

    private Object unwrap(Object o) {
      return o == NoneValue.NONE ? null : o;
    }

    private Object global(String name) {
      boolean storage = name.startsWith("torch ")
          && STORAGES.containsKey(name.substring("torch ".length()));
      if (!CALLS.contains(name) && !storage) {
        throw refuse("global " + name + " is not one a tensor state dict uses");
      }
      return new Global(name);
    }

    /** The top of the stack, which {@code op} stores; refused when there is none. */
    private Object top(String op) {
      if (stack.isEmpty()) {
        throw refuse(op + " on an empty stack");
      }
      return stack.peek();
    }

    private Object reduce(Object callable, Object args) {
      if (!(callable instanceof Global g) || !(args instanceof List<?> a)) {
        throw refuse("a call of " + describe(callable));
      }
      return switch (g.name()) {
        case "collections OrderedDict" -> new LinkedHashMap<>();
        case "torch._utils _rebuild_tensor_v2" -> {
          if (a.size() < 4 || !(a.get(0) instanceof Storage s) || !(a.get(1) instanceof Long o)
              || !(a.get(2) instanceof List<?> shape) || !(a.get(3) instanceof List<?> stride)) {
            throw refuse("_rebuild_tensor_v2 with " + a.size() + " arguments, not a storage, "
                + "an offset, a shape and strides");
          }
          yield new Rebuilt(s, o, List.copyOf(shape), List.copyOf(stride));
        }
        default -> throw refuse("a call of global " + g.name());
      };
    }

    private Object storage(Object pid) {
      if (!(pid instanceof List<?> p) || p.size() != 5 || !"storage".equals(p.get(0))
          || !(p.get(1) instanceof Global type) || !(p.get(2) instanceof String key)
          || !type.name().startsWith("torch ")
          || !STORAGES.containsKey(type.name().substring("torch ".length()))) {
        throw refuse("a persistent id that is not a storage (a " + describe(pid)
            + (pid instanceof List<?> l && l.size() > 1 ? " whose type is a "
                + describe(l.get(1)) : "") + ")");
      }
      return new Storage(key, type.name().substring("torch ".length()));
    }

    /**
     * A dict key, which in a state dict is a name or a number; a list or a dict is refused (it
     * could hold itself, and hashing it would never end).
     */
    private Object key(Object key) {
      if (key instanceof String || key instanceof Long || key instanceof Boolean
          || key instanceof Double || key == NoneValue.NONE) {
        return key;
      }
      throw refuse("a dict key that is a " + describe(key));
    }

    @SuppressWarnings("unchecked")
    private Map<Object, Object> dict(Object o) {
      if (!(o instanceof Map<?, ?>)) {
        throw refuse("an item set on a " + describe(o));
      }
      return (Map<Object, Object>) o;
    }

    private Object memo(long key) {
      if (!memo.containsKey(key)) {
        throw refuse("memo " + key + " read before it is written");
      }
      return memo.get(key);
    }

    private Object pop() {
      if (stack.isEmpty()) {
        throw refuse("the pickle pops an empty stack");
      }
      return stack.pop();
    }

    private List<Object> popToMark() {
      List<Object> items = new ArrayList<>();
      while (true) {
        Object o = pop();
        if (o == MARK) {
          java.util.Collections.reverse(items);
          return items;
        }
        items.add(o);
      }
    }

    private long long1() {
      int n = in.get() & 0xff;
      if (n > 8) {
        throw refuse("an integer of " + n + " bytes");
      }
      long v = 0;
      for (int i = 0; i < n; i++) {
        v |= (long) (in.get() & 0xff) << (8 * i);
      }
      return n > 0 && n < 8 && (v >> (8 * n - 1) & 1) == 1 ? v - (1L << (8 * n)) : v;
    }

    private String text(int length) {
      if (length < 0 || length > in.remaining()) {
        throw refuse("a string of " + length + " bytes past the pickle's end");
      }
      byte[] b = new byte[length];
      in.get(b);
      return new String(b, StandardCharsets.UTF_8);
    }

    private String line() {
      StringBuilder s = new StringBuilder();
      while (in.hasRemaining()) {
        byte b = in.get();
        if (b == '\n') {
          return s.toString();
        }
        s.append((char) (b & 0xff));
      }
      throw refuse("a GLOBAL without its end of line");
    }

    private WeightsException refuse(String what) {
      return new WeightsException(file + " is refused before anything in it runs: " + what
          + " (a torch.save file is a program; only plain tensor state dicts are read)");
    }
  }

  /** Python's None on the stack (the stack holds no nulls). */
  private enum NoneValue { NONE }
}
