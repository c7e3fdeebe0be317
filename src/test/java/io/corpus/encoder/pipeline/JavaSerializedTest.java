package io.corpus.encoder.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.kernel.Bfloat16Matrix;
import io.corpus.encoder.kernel.Int8Matrix;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.RandomModels;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.PlainRunner;
import io.corpus.encoder.weights.WeightsLoader;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * A broadcast model reaches executors with its reduced-precision weights whatever
 * {@code spark.serializer} is: through Kryo (set in many clusters' spark-defaults.conf) as
 * through Java serialization, every int8 and bfloat16 matrix comes back with its values, next
 * to a Kryo-written value after it in the same stream; and every golden case's model, sent either
 * way, encodes to the same bits as before (what the local cluster's executors would otherwise be
 * the only ones to show).
 */
class JavaSerializedTest {
  private static final ClassTag<Object> ANY = ClassTag$.MODULE$.apply(Object.class);

  private static EncoderModel model(Precision precision) {
    return EncoderModel.layersOnly(RandomModels.weights(new Random(3), 2, 64, 96, false, 0))
        .in(precision);
  }

  @Test
  void reducedWeightsTravelThroughKryoAndJavaSerialization() {
    SparkConf conf = new SparkConf();
    for (Serializer serializer : new Serializer[] {new KryoSerializer(conf),
        new JavaSerializer(conf)}) {
      SerializerInstance s = serializer.newInstance();
      for (Precision p : new Precision[] {Precision.INT8, Precision.BFLOAT16}) {
        EncoderModel model = model(p);
        ByteBuffer bytes = s.serialize(new Object[] {new JavaSerialized<>(model), "after"}, ANY);
        Object[] back = (Object[]) s.deserialize(bytes, ANY);
        @SuppressWarnings("unchecked")
        EncoderModel copy = ((JavaSerialized<EncoderModel>) back[0]).value();
        assertEquals("after", back[1], serializer.getClass().getSimpleName());
        for (int l = 0; l < 2; l++) {
          LayerWeights a = model.encoder().layers().get(l);
          LayerWeights b = copy.encoder().layers().get(l);
          for (Matrix[] m : new Matrix[][] {{a.inProjWeight(), b.inProjWeight()},
              {RandomModels.plain(a).out(), RandomModels.plain(b).out()}}) {
            assertEquals(p, m[1].precision());
            if (m[0] instanceof Int8Matrix int8) {
              assertArrayEquals(int8.values(), ((Int8Matrix) m[1]).values());
            } else {
              assertArrayEquals(((Bfloat16Matrix) m[0]).bits(), ((Bfloat16Matrix) m[1]).bits());
            }
          }
        }
      }
    }
  }

  static List<GoldenCase> cases() {
    return GoldenCase.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyGoldenModelEncodesTheSameAfterEitherSerializer(GoldenCase c) {
    EncoderModel model = EncoderModel.layersOnly(
        WeightsLoader.load(c.weights(), c.naming(), c.settings()));
    PlainRunner.Output[] before = PlainRunner.run(c.settings(), model.encoder(), c.inputs(), 2);
    SparkConf conf = new SparkConf();
    for (Serializer serializer : new Serializer[] {new KryoSerializer(conf),
        new JavaSerializer(conf)}) {
      SerializerInstance s = serializer.newInstance();
      Object back = s.deserialize(s.serialize(new JavaSerialized<>(model), ANY), ANY);
      @SuppressWarnings("unchecked")
      EncoderWeights copy = ((JavaSerialized<EncoderModel>) back).value().encoder();
      PlainRunner.Output[] after = PlainRunner.run(c.settings(), copy, c.inputs(), 2);
      for (int r = 0; r < before.length; r++) {
        String what = c + " through " + serializer.getClass().getSimpleName() + ", row " + r;
        for (int t = 0; t < before[r].embeddings().length; t++) {
          assertArrayEquals(before[r].embeddings()[t], after[r].embeddings()[t], what);
        }
      }
    }
  }
}
