package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Float32Matrix;
import io.corpus.encoder.kernel.Matrix;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.RecordComponent;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The values a model's parts hold, counted in one place by walking them as PyTorch's
 * {@code parameters()} does: every matrix and float vector a record holds, in records, lists
 * and arrays of them, each storage once (a table two parts share counts once). A part adds
 * nothing to do so; scalars, ids, labels and settings are not counted. What the parts hold is
 * not quite a checkpoint's parameters: the zeros that stand in for a bias or a shift an
 * architecture lacks are held too, and a table worked out from another (DeBERTa's normalized
 * relative positions); a folder's parameters are counted from its checkpoint's headers.
 */
public final class Parameters {
  private Parameters() {}

  /**
   * A record component that holds another part's parameters in another form (SPLADE's decoder,
   * the word table tied): its bytes are held, its values are not parameters of their own.
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.RECORD_COMPONENT)
  public @interface Tied {}

  /** The values the parameters of {@code parts} hold. */
  public static long count(Object parts) {
    return walk(parts, false);
  }

  /** The bytes they take as held: a matrix in its precision, a vector in float32. */
  public static long bytes(Object parts) {
    return walk(parts, true);
  }

  private static long walk(Object parts, boolean bytes) {
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    return new Object() {
      long of(Object part) {
        if (part == null || !seen.add(storage(part))) {
          return 0;
        }
        if (part instanceof Matrix m) {
          return bytes ? m.bytes() : (long) m.rows() * m.cols();
        }
        if (part instanceof float[] values) {
          return (bytes ? 4L : 1L) * values.length;
        }
        long sum = 0;
        if (part instanceof Object[] array) {
          for (Object o : array) {
            sum += of(o);
          }
        } else if (part instanceof Iterable<?> list) {
          for (Object o : list) {
            sum += of(o);
          }
        } else if (part instanceof Map<?, ?> map) {
          sum += of(map.values());
        } else if (part instanceof Record) {
          for (RecordComponent c : part.getClass().getRecordComponents()) {
            if (bytes || !c.isAnnotationPresent(Tied.class)) {
              sum += of(value(c, part));
            }
          }
        }
        return sum;
      }
    }.of(parts);
  }

  /** What a part's values live in: a float32 matrix's array, which a vector may share. */
  private static Object storage(Object part) {
    return part instanceof Float32Matrix m ? m.values() : part;
  }

  private static Object value(RecordComponent component, Object record) {
    try {
      var accessor = component.getAccessor();
      accessor.setAccessible(true);
      return accessor.invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read " + component, e);
    }
  }
}
