package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.Norm;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What the Llama-shaped decoder families (Qwen2, Qwen3, Mistral) share, as transformers saves
 * them: the model under {@code model.} in a task checkpoint ({@code …ForCausalLM}'s
 * {@code lm_head} left out), token embeddings without positions, layers of
 * {@link DecoderTensors} between {@code input_layernorm} and {@code post_attention_layernorm}
 * (RMSNorm scales), a final {@code norm}, and {@code …ForSequenceClassification}'s head:
 * {@code score.weight} (labels, E) without a bias on the final state of the rightmost token that
 * is not {@code pad_token_id}. A family says its types, its architecture and its layers'
 * {@link DecoderTensors.Parts}.
 */
abstract class DecoderFamily extends NamedFamily {
  private static final String LAYERS = "layers.";
  private static final String SCORE = "score.weight";
  /** The sequence classifier's {@code score}; no token classifier is read for a decoder. */
  static final HeadTensors HEADS = HeadTensors.score(SCORE);
  private final DecoderTensors.Parts parts;

  /** A family of these names whose layers have these of the shared tensors. */
  DecoderFamily(Names names, DecoderTensors.Parts parts) {
    super(names);
    this.parts = parts;
  }

  /**
   * A decoder family's {@link ModelFamily.Names}: its tensors under {@code model.} in a task
   * checkpoint, {@code embed_tokens.}, {@code layers.} and {@code norm.}, the head's
   * {@code score.}.
   */
  static Names names(String name, List<String> modelTypes, String examples) {
    return new Names(name, modelTypes, examples, "model.", LAYERS,
        List.of("embed_tokens.", LAYERS, "norm."), HEADS, "");
  }

  @Override
  public EmbeddingWeights embeddings(TensorNaming.TensorSource read, ModelFolder model) {
    int e = model.shape().width();
    long vocabulary = Math.max(1, read.rows("embed_tokens.weight"));
    return EmbeddingWeights.wordsOnly(read.table("embed_tokens.weight", vocabulary, e));
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    int e = model.shape().width();
    String p = layerPrefix(i);
    return DecoderTensors.layer(read, p, model, parts)
        .norms(read.take(p + "input_layernorm.weight", e),
            read.take(p + "post_attention_layernorm.weight", e))
        .build();
  }

  @Override
  public Norm finalNorm(TensorNaming.TensorSource read, ModelFolder model) {
    int e = model.shape().width();
    return new Norm.Affine(read.take("norm.weight", e), new float[e]);
  }

  /** The last token that is not {@code pad_token_id} (any token when config.json has none). */
  @Override
  public HeadShape headShape(JsonNode config, Path file) {
    Optional<JsonNode> pad = ModelFamily.given(config, "pad_token_id");
    if (pad.isPresent() && (!pad.get().canConvertToInt() || pad.get().asInt() < 0)) {
      throw new WeightsException(file + ": pad_token_id is " + pad.get() + ", expected a token "
          + "id or null");
    }
    return new HeadShape(ClassifierHead.Read.LAST_NOT_PAD, ClassifierHead.DenseActivation.NONE,
        false, pad.map(JsonNode::asInt).orElse(-1));
  }

  @Override
  public ClassifierHead head(TensorNaming.TensorSource read, ModelFolder model, int labels) {
    ModelFolder.Classifier classifier = model.classifier().orElseThrow();
    return ClassifierHead.score(read.take(SCORE, labels, model.shape().width()),
        classifier.labels(), classifier.scoring(), classifier.shape().padId());
  }
}
