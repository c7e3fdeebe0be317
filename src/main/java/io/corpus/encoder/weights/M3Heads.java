package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.DenseLayer;
import io.corpus.encoder.model.LexicalHead;
import io.corpus.encoder.model.MultiVectorHead;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * bge-m3's heads beside its checkpoint, as FlagEmbedding saves them: {@code sparse_linear.pt}
 * (Linear(E, 1)) and {@code colbert_linear.pt} (Linear(E, D)), each {@code torch.save} of a
 * state dict, read by {@link TorchStateDict} (no pickle code runs), every entry used and every
 * shape checked. The lexical weights leave out the tokenizer's {@code cls}, {@code eos},
 * {@code pad} and {@code unk} tokens, named by {@code special_tokens_map.json} (else
 * {@code tokenizer_config.json}, else XLM-R's {@code <s> </s> <pad> <unk>}) and found in
 * {@code tokenizer.json}.
 */
final class M3Heads {
  private static final List<String> LEFT_OUT_ROLES = List.of("cls_token", "eos_token",
      "pad_token", "unk_token");
  private static final List<String> XLMR_DEFAULTS = List.of("<s>", "</s>", "<pad>", "<unk>");

  private M3Heads() {}

  /** {@code sparse_linear.pt}'s lexical head for a model of width E. */
  static LexicalHead lexical(ModelFolder model) {
    Path file = model.folder().resolve(ModelFolder.SPARSE_LINEAR);
    Map<String, TorchStateDict.Tensor> t = linear(file);
    float[] weight = take(t, file, "weight", 1, model.shape().width());
    return new LexicalHead(weight, take(t, file, "bias", 1), specialIds(model));
  }

  /** {@code colbert_linear.pt}'s projection of every token. */
  static MultiVectorHead colbert(ModelFolder model) {
    Path file = model.folder().resolve(ModelFolder.COLBERT_LINEAR);
    Map<String, TorchStateDict.Tensor> t = linear(file);
    TorchStateDict.Tensor weight = t.get("weight");
    long out = weight == null || weight.shape().length != 2 ? -1 : weight.shape()[0];
    return new MultiVectorHead(List.of(new DenseLayer(take(t, file, "weight", out,
        model.shape().width()), take(t, file, "bias", out), model.shape().width(),
        DenseLayer.Activation.IDENTITY)));
  }

  /** A Linear layer's state dict: weight and bias, nothing else. */
  private static Map<String, TorchStateDict.Tensor> linear(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new WeightsException(file + " is missing");
    }
    Map<String, TorchStateDict.Tensor> t = TorchStateDict.read(file);
    if (!t.keySet().equals(Set.of("weight", "bias"))) {
      throw new WeightsException(file + " holds " + t.keySet() + ", expected a Linear layer's "
          + "[weight, bias]");
    }
    return t;
  }

  private static float[] take(Map<String, TorchStateDict.Tensor> t, Path file, String name,
      long... shape) {
    TorchStateDict.Tensor tensor = t.get(name);
    if (!Arrays.equals(tensor.shape(), shape)) {
      throw new WeightsException(file + ": " + name + " has shape "
          + Arrays.toString(tensor.shape()) + ", expected " + Arrays.toString(shape));
    }
    return WeightsLoader.finite(name, tensor.values(), file);
  }

  /** The ids of the cls, eos, pad and unk tokens, as the folder's tokenizer names them. */
  static int[] specialIds(ModelFolder model) {
    Path tokenizer = model.tokenizer().orElseThrow(() -> new WeightsException(model.folder()
        + " has no tokenizer.json, whose special tokens the lexical weights leave out"));
    JsonNode json = ModelFolder.json(tokenizer);
    List<Integer> ids = new ArrayList<>();
    for (int r = 0; r < LEFT_OUT_ROLES.size(); r++) {
      String token = model.specialToken(LEFT_OUT_ROLES.get(r)).orElse(XLMR_DEFAULTS.get(r));
      int id = ModelFolder.tokenId(json, token);
      if (id < 0) {
        throw new WeightsException(tokenizer + " has no token " + token + " ("
            + LEFT_OUT_ROLES.get(r) + "), which the lexical weights leave out");
      }
      ids.add(id);
    }
    return ids.stream().mapToInt(Integer::intValue).toArray();
  }
}
