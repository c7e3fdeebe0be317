package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.EncoderModel;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

/**
 * How tasks reach the model (embedding layer and encoder weights). On a cluster: a Spark
 * broadcast, fetched once per executor. With a local master the tasks run in the driver's JVM, so
 * they take the driver's object directly: no serialized copy of hundreds of megabytes, no seconds
 * spent making it.
 */
abstract class WeightsHandle implements Serializable {
  abstract EncoderModel get();

  /** Frees what the handle holds outside the driver (a broadcast's blocks on every executor). */
  abstract void destroy();

  static WeightsHandle of(JavaSparkContext jsc, EncoderModel weights) {
    return jsc.sc().isLocal() ? new InProcess(weights)
        : new Broadcasted(jsc.broadcast(new JavaSerialized<>(weights)));
  }

  /**
   * A broadcast variable: the cluster way. Java-serialized whatever {@code spark.serializer} is
   * ({@link JavaSerialized}: the reduced-precision weights travel no other way).
   */
  private static final class Broadcasted extends WeightsHandle {
    private final Broadcast<JavaSerialized<EncoderModel>> broadcast;

    Broadcasted(Broadcast<JavaSerialized<EncoderModel>> broadcast) {
      this.broadcast = broadcast;
    }

    @Override
    EncoderModel get() {
      return broadcast.value().value();
    }

    @Override
    void destroy() {
      broadcast.destroy();
    }
  }

  /**
   * A key into this JVM's registry of weights. The registry holds them weakly: they live as long
   * as the transformer that loaded them, so a notebook that loads many models leaks none.
   */
  private static final class InProcess extends WeightsHandle {
    private static final Map<String, WeakReference<EncoderModel>> REGISTRY =
        new ConcurrentHashMap<>();
    private final String key = UUID.randomUUID().toString();
    // Keeps the weights reachable while the handle itself is (on the driver).
    private final transient EncoderModel pinned;

    InProcess(EncoderModel weights) {
      this.pinned = weights;
      REGISTRY.put(key, new WeakReference<>(weights));
    }

    @Override
    void destroy() {
      REGISTRY.remove(key);
    }

    @Override
    EncoderModel get() {
      WeakReference<EncoderModel> ref = REGISTRY.get(key);
      EncoderModel weights = ref == null ? null : ref.get();
      if (weights == null) {
        throw new IllegalStateException("The encoder's weights are not in this JVM: a local-mode "
            + "handle reached another process. Use a cluster master to get a broadcast.");
      }
      return weights;
    }
  }
}
