package io.corpus.encoder.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.config.Setting;
import io.corpus.encoder.config.Settings;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.param.Param;
import org.junit.jupiter.api.Test;

/** Every setting that names a param is a param of the Transformer with its default and doc. */
class EncoderParamsTest {
  @Test
  void eachSettingWithAParamIsOneWithTheSameDefaultAndDoc() {
    EncoderTransformer t = new EncoderTransformer();
    List<Setting<?>> settings = Settings.withParams().toList();
    assertEquals(51, settings.size());
    for (Setting<?> setting : settings) {
      Param<?> param = t.getParam(setting.param());
      assertEquals(setting.doc(), param.doc(), setting.key());
      Object value = t.getDefault(param).get();
      Object expected = setting.defaultValue();
      if (value instanceof int[] ints) {
        value = Arrays.stream(ints).boxed().toList();
      } else if (value instanceof String[] strings) {
        value = List.of(strings);
      }
      assertEquals(expected, value, setting.key());
    }
  }

  @Test
  void aParamRefusesWhatItsSettingRefuses() {
    EncoderTransformer t = new EncoderTransformer();
    assertThrows(IllegalArgumentException.class, () -> t.setPooling("avg"));
    assertThrows(IllegalArgumentException.class, () -> t.setAttentionSample(0));
    assertThrows(IllegalArgumentException.class, () -> t.setAttentionTopK(0));
    assertThrows(IllegalArgumentException.class, () -> t.setLayerNormEps(-1));
    assertTrue(t.setPooling("auto").setAttentionSample(0.5).isSet(t.param(Settings.ATTENTION_SAMPLE)));
  }
}
