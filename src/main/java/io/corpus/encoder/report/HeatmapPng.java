package io.corpus.encoder.report;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.imageio.ImageIO;

/**
 * A (rows, columns) matrix of weights in [0, 1] as a PNG heatmap: one square of {@code cell}
 * pixels per entry, white for 0 to dark blue for the largest value shown (scaled per image, so a
 * head with small weights is still readable). No text: labels belong to the page around it.
 */
public final class HeatmapPng {
  private HeatmapPng() {}

  public static byte[] render(float[][] values, int cell) {
    int rows = values.length;
    int columns = rows == 0 ? 0 : values[0].length;
    float max = 0f;
    for (float[] row : values) {
      for (float v : row) {
        max = Math.max(max, v);
      }
    }
    BufferedImage image = new BufferedImage(Math.max(1, columns * cell), Math.max(1, rows * cell),
        BufferedImage.TYPE_INT_RGB);
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < columns; j++) {
        int rgb = color(max > 0 ? values[i][j] / max : 0f);
        for (int y = i * cell; y < (i + 1) * cell; y++) {
          for (int x = j * cell; x < (j + 1) * cell; x++) {
            image.setRGB(x, y, rgb);
          }
        }
      }
    }
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    try {
      ImageIO.write(image, "png", png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return png.toByteArray();
  }

  /** White (0) to dark blue (1), linear in each channel. */
  static int color(float fraction) {
    float f = Math.max(0f, Math.min(1f, fraction));
    int r = Math.round(255 - f * (255 - 8));
    int g = Math.round(255 - f * (255 - 48));
    int b = Math.round(255 - f * (255 - 107));
    return (r << 16) | (g << 8) | b;
  }
}
