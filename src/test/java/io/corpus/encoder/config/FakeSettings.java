package io.corpus.encoder.config;

import java.util.ArrayList;
import java.util.List;

/** The job's catalogue with one more setting, for tests of what is derived from a catalogue. */
public final class FakeSettings {
  private FakeSettings() {}

  /** A string setting no catalogue holds, shaping rows or not. */
  public static Setting<String> fake(String key, String defaultValue, boolean shapesRows) {
    Setting<String> setting = Setting.text(key, "", defaultValue, "a setting only tests declare");
    return shapesRows ? setting.shapingRows() : setting;
  }

  /** {@link Settings#ALL} and {@code extra} after it. */
  public static List<Setting<?>> catalogueWith(Setting<?> extra) {
    List<Setting<?>> catalogue = new ArrayList<>(Settings.ALL);
    catalogue.add(extra);
    return catalogue;
  }
}
