import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
import java.util.Map;
import java.util.Random;

/**
 * The ONNX Runtime Java peer of jobs/benchmarks/bench-bert-base: an ONNX export of the encoder stack
 * (jobs/benchmarks/peers/onnx_export.py) run on random input made in memory, batches of 32 sequences, intra-op
 * threads = cores, every graph optimization on; nothing is read or written. Run by
 * jobs/benchmarks/bench-bert-base with ONNX Runtime's jar on the class path (single-file source launch).
 *
 * <p>Usage: java -cp ONNXRUNTIME_JAR OrtLayers.java MODEL.onnx ROWS LENGTH WIDTH [BATCH]
 */
public final class OrtLayers {
  public static void main(String[] args) throws Exception {
    String model = args[0];
    int rows = Integer.parseInt(args[1]);
    int length = Integer.parseInt(args[2]);
    int width = Integer.parseInt(args[3]);
    int batch = args.length > 4 ? Integer.parseInt(args[4]) : 32;
    int threads = Runtime.getRuntime().availableProcessors();
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    OrtSession.SessionOptions options = new OrtSession.SessionOptions();
    options.setIntraOpNumThreads(threads);
    options.setInterOpNumThreads(1);
    options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
    options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
    long t0 = System.nanoTime();
    try (OrtSession session = env.createSession(model, options)) {
      long t1 = System.nanoTime();
      Random random = new Random(1);
      float[] input = new float[batch * length * width];
      double checksum = 0;
      for (int first = 0; first < rows; first += batch) {
        int b = Math.min(batch, rows - first);
        for (int i = 0; i < b * length * width; i++) {
          input[i] = (float) random.nextGaussian();
        }
        try (OnnxTensor x = OnnxTensor.createTensor(env, FloatBuffer.wrap(input, 0,
                b * length * width), new long[] {b, length, width});
            OrtSession.Result y = session.run(Map.of("x", x))) {
          checksum += ((OnnxTensor) y.get(0)).getFloatBuffer().get(0);
        }
      }
      long t2 = System.nanoTime();
      System.out.printf("onnx runtime %s: %d x %d tokens, batches of %d, %d threads: session %.1f s,"
          + " forward %.1f s (%,.0f tokens/s; checksum %.4f)%n", env.getVersion(), rows, length,
          batch, threads, (t1 - t0) / 1e9, (t2 - t1) / 1e9, rows * length / ((t2 - t1) / 1e9),
          checksum);
    }
  }
}
