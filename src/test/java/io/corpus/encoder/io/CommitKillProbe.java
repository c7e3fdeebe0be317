package io.corpus.encoder.io;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;

/**
 * A child JVM for {@link OutputFolderTest}: writes a new output for {@code TARGET} and commits it,
 * halting the JVM (as kill -9 would) right before commit step {@code STEP}.
 * Arguments: TARGET STEP exchange|renames.
 */
public final class CommitKillProbe {
  private CommitKillProbe() {}

  public static void main(String[] args) throws Exception {
    OutputFolder out = OutputFolder.open(args[0], new Configuration(),
        OutputFolder.Replace.EARLIER_OUTPUT);
    if (args[2].equals("renames")) {
      out.withoutExchange();
    }
    OutputFolderTest.writeOutput(Path.of(java.net.URI.create(out.staging())), "new");
    OutputFolder.CommitStep stop = OutputFolder.CommitStep.valueOf(args[1]);
    out.beforeEachStep(step -> {
      if (step == stop) {
        Runtime.getRuntime().halt(137);
      }
    });
    out.commit();
    Files.writeString(Path.of(args[0] + ".committed"), "yes", StandardCharsets.UTF_8);
  }
}
