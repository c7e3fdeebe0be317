package io.corpus.encoder.pipeline;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;

/**
 * A value that travels by Java serialization whatever {@code spark.serializer} says: under Kryo
 * too, through Kryo's own {@link JavaSerializer}. Kryo 4's field-by-field serializer cannot
 * write the model's records, and the reduced-precision weights live in native memory, which
 * only their {@code writeObject} carries.
 */
@DefaultSerializer(JavaSerializer.class)
final class JavaSerialized<T extends Serializable> implements Serializable {
  private static final long serialVersionUID = 1L;
  private final T value;

  JavaSerialized(T value) {
    this.value = value;
  }

  T value() {
    return value;
  }
}
