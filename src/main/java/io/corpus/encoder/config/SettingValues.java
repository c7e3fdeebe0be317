package io.corpus.encoder.config;

/**
 * The settings as one reader holds them: a job's file ({@link JobSettings}, and its
 * {@link SettingsParser} while it reads) or an ML Transformer's params. What both readers take
 * from a setting is read from one of these in {@link SettingRules}, so the setting is read in one
 * place for both.
 */
public interface SettingValues {
  /** The value of {@code setting}: as given, else its default; a list as a {@code List}. */
  <T> T value(Setting<T> setting);

  /** Whether the job's file or the params set {@code setting}, rather than leave its default. */
  boolean given(Setting<?> setting);

  /** How this reader names settings and refuses them. */
  SettingRules.Naming naming();
}
