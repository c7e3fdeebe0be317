package io.corpus.encoder.report;

import java.util.List;

/**
 * The corpus map's N points: the pooled vectors of the written rows (or a sample of them)
 * projected to 2-D, with what the page shows of each row, and their nearest neighbours.
 *
 * @param rows rows written in all (N of them are drawn)
 * @param colorColumn the column the points are coloured by, "" for none
 * @param ids (N) each point's id as text (with "#chunk" for a window of a long text)
 * @param texts (N) the first words of each row's text, "" without a text column
 * @param colors (N) each point's value of the colour column as text, or null
 * @param x (N) first principal component
 * @param y (N) second principal component
 * @param neighbours each point's nearest points by cosine, and the near-duplicate pairs
 * @param duplicatesAbove the cosine from which pairs are near duplicates
 */
public record CorpusMap(long rows, String colorColumn, List<String> ids, List<String> texts,
    List<String> colors, float[] x, float[] y, NearestNeighbours neighbours,
    double duplicatesAbove) {

  /** The first words of a text, at most about {@code chars} characters, whole words. */
  public static String firstWords(String text, int chars) {
    if (text == null) {
      return "";
    }
    String flat = text.strip().replaceAll("\\s+", " ");
    if (flat.length() <= chars) {
      return flat;
    }
    int cut = flat.lastIndexOf(' ', chars);
    int end = cut > chars / 2 ? cut : chars;
    if (Character.isHighSurrogate(flat.charAt(end - 1))) {
      end--;   // never half an emoji
    }
    return flat.substring(0, end) + " …";
  }
}
