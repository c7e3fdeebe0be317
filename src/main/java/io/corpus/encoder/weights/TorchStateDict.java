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
 * ({@code collections.OrderedDict}, {@code torch._utils._rebuild_tensor_v2} and the float storage
 * types) and refuses, in one line naming what it found, any other global or opcode before
 * anything is built. A {@code .pt} file is a program; this reads it as data only.
 */
public final class TorchStateDict {
  /**
   * One tensor, row-major.
   *
   * @param shape the size of each axis
   * @param values its values, widened to float
   */
  public record Tensor(long[] shape, float[] values) {}

  private static final Set<String> GLOBALS = Set.of("collections OrderedDict",
      "torch._utils _rebuild_tensor_v2", "torch FloatStorage", "torch HalfStorage",
      "torch BFloat16Storage", "torch DoubleStorage");
  private static final Object MARK = new Object();

  private record Global(String name) {}

  private record Storage(String key, String type) {}

  private record Rebuilt(Storage storage, long offset, List<Object> shape, List<Object> stride) {}

  private TorchStateDict() {}

  /** The tensors of {@code file} by name, in the file's order; a refusal names what is wrong. */
  public static Map<String, Tensor> read(Path file) {
    try (ZipFile zip = new ZipFile(file.toFile())) {
      ZipEntry pickle = zip.stream().filter(e -> e.getName().endsWith("data.pkl")).findFirst()
          .orElseThrow(() -> new WeightsException(file + " is not a torch.save zip: it has no "
              + "data.pkl (an older torch.save format, which is not read)"));
      String root = pickle.getName().substring(0, pickle.getName().length() - "data.pkl".length());
      Object top = new Reader(file, zip.getInputStream(pickle).readAllBytes()).run();
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
        tensors.put(name, tensor(file, name, t, zip.getInputStream(data).readAllBytes()));
      }
      return tensors;
    } catch (IOException e) {
      throw new WeightsException("Cannot read " + file + ": " + e.getMessage());
    }
  }

  private static Tensor tensor(Path file, String name, Rebuilt t, byte[] bytes) {
    long[] shape = new long[t.shape().size()];
    long count = 1;
    for (int d = 0; d < shape.length; d++) {
      shape[d] = ((Number) t.shape().get(d)).longValue();
      count *= shape[d];
    }
    long expected = 1;
    for (int d = shape.length - 1; d >= 0; d--) {
      if (shape[d] > 1 && ((Number) t.stride().get(d)).longValue() != expected) {
        throw new WeightsException(file + ": tensor " + name + " is not contiguous (strides "
            + t.stride() + " for shape " + t.shape() + ")");
      }
      expected *= shape[d];
    }
    String type = t.storage().type();
    int width = switch (type) {
      case "FloatStorage" -> 4;
      case "DoubleStorage" -> 8;
      default -> 2;
    };
    if ((t.offset() + count) * width > bytes.length || count > Integer.MAX_VALUE) {
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

  private static String describe(Object o) {
    return o == null ? "None" : o instanceof Global g ? "global " + g.name()
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

    Object run() {
      while (true) {
        if (!in.hasRemaining()) {
          throw refuse("the pickle ends before its STOP");
        }
        int op = in.get() & 0xff;
        switch (op) {
          case 0x80 -> in.get();                                     // PROTO
          case 0x95 -> in.getLong();                                 // FRAME
          case 'c' -> stack.push(global(line() + " " + line()));     // GLOBAL
          case 'q' -> memo.put((long) (in.get() & 0xff), stack.peek());   // BINPUT
          case 'r' -> memo.put(in.getInt() & 0xffffffffL, stack.peek());  // LONG_BINPUT
          case 0x94 -> memo.put((long) memo.size(), stack.peek());   // MEMOIZE
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
            dict(stack.peek()).put(key, value);
          }
          case 'u' -> {                                              // SETITEMS
            List<Object> items = popToMark();
            Map<Object, Object> d = dict(stack.peek());
            for (int i = 0; i + 1 < items.size(); i += 2) {
              d.put(items.get(i), items.get(i + 1));
            }
          }
          case 'a' -> list(stack.pop(), List.of(pop()));             // APPEND
          case 'e' -> {                                              // APPENDS
            List<Object> items = popToMark();
            list(stack.pop(), items);
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
      if (!GLOBALS.contains(name)) {
        throw refuse("global " + name + " is not one a tensor state dict uses");
      }
      return new Global(name);
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
            throw refuse("_rebuild_tensor_v2 with arguments " + a);
          }
          yield new Rebuilt(s, o, List.copyOf(shape), List.copyOf(stride));
        }
        default -> throw refuse("a call of global " + g.name());
      };
    }

    private Object storage(Object pid) {
      if (!(pid instanceof List<?> p) || p.size() != 5 || !"storage".equals(p.get(0))
          || !(p.get(1) instanceof Global type) || !(p.get(2) instanceof String key)) {
        throw refuse("a persistent id " + pid + " that is not a storage");
      }
      return new Storage(key, type.name().substring("torch ".length()));
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
