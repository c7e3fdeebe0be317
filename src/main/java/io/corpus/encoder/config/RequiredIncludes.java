package io.corpus.encoder.config;

import com.typesafe.config.ConfigIncludeContext;
import com.typesafe.config.ConfigIncluder;
import com.typesafe.config.ConfigIncluderClasspath;
import com.typesafe.config.ConfigIncluderFile;
import com.typesafe.config.ConfigIncluderURL;
import com.typesafe.config.ConfigObject;
import java.io.File;
import java.net.URL;

/**
 * HOCON includes that must exist. Typesafe Config skips an {@code include} whose file is missing
 * (only {@code include required(...)} fails), so a misspelt {@code include file("comon.conf")}
 * would drop every setting it was meant to bring. This includer asks the library's own includer
 * to parse every include as required: a missing one is an error naming it.
 */
final class RequiredIncludes implements ConfigIncluder, ConfigIncluderFile, ConfigIncluderURL,
    ConfigIncluderClasspath {
  private final ConfigIncluder fallback;

  RequiredIncludes() {
    this(null);
  }

  private RequiredIncludes(ConfigIncluder fallback) {
    this.fallback = fallback;
  }

  @Override
  public ConfigIncluder withFallback(ConfigIncluder fallback) {
    return this.fallback == null ? new RequiredIncludes(fallback) : this;
  }

  @Override
  public ConfigObject include(ConfigIncludeContext context, String what) {
    return fallback.include(required(context), what);
  }

  @Override
  public ConfigObject includeFile(ConfigIncludeContext context, File what) {
    return ((ConfigIncluderFile) fallback).includeFile(required(context), what);
  }

  @Override
  public ConfigObject includeURL(ConfigIncludeContext context, URL what) {
    return ((ConfigIncluderURL) fallback).includeURL(required(context), what);
  }

  @Override
  public ConfigObject includeResources(ConfigIncludeContext context, String what) {
    return ((ConfigIncluderClasspath) fallback).includeResources(required(context), what);
  }

  private static ConfigIncludeContext required(ConfigIncludeContext context) {
    return context.setParseOptions(context.parseOptions().setAllowMissing(false));
  }
}
