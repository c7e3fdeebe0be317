package io.corpus.encoder.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * Its parent class loader with one service provider left out: the {@code META-INF/services} files
 * of {@code service} that name {@code provider} alone are not listed, so {@link
 * java.util.ServiceLoader} never loads it. Every class and every other resource comes from the
 * parent. A thread's context loader while something it does not need would be set up.
 */
final class WithoutServiceProvider extends ClassLoader {
  private final String serviceFile;
  private final String provider;

  WithoutServiceProvider(ClassLoader parent, String service, String provider) {
    super(parent);
    this.serviceFile = "META-INF/services/" + service;
    this.provider = provider;
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    Enumeration<URL> all = super.getResources(name);
    if (!name.equals(serviceFile)) {
      return all;
    }
    List<URL> kept = new ArrayList<>();
    for (URL url : Collections.list(all)) {
      if (!namesOnlyTheProvider(url)) {
        kept.add(url);
      }
    }
    return Collections.enumeration(kept);
  }

  /** Whether the service file lists {@code provider} and nothing else (comments aside). */
  private boolean namesOnlyTheProvider(URL url) {
    List<String> names = new ArrayList<>();
    try (BufferedReader lines = new BufferedReader(
        new InputStreamReader(url.openStream(), StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        int comment = line.indexOf('#');
        String name = (comment < 0 ? line : line.substring(0, comment)).strip();
        if (!name.isEmpty()) {
          names.add(name);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + url, e);
    }
    return names.equals(List.of(provider));
  }
}
