package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.LatentAttention;
import io.corpus.encoder.model.Pooling;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * NV-Embed (nvidia/NV-Embed-v2), as its own {@code modeling_nvembed.py} computes it, which the job
 * carries instead of running: an {@code NVEmbedModel} config.json ({@code model_type} nvembed,
 * its {@code auto_map} recognized) whose {@code text_config} is a Mistral run bidirectionally
 * ({@code BidirectionalMistralModel}: {@code is_causal} false on every layer, eager attention
 * with the padding mask alone, so {@code sliding_window} is not applied), under
 * {@code embedding_model.}; then {@code latent_attention_model.}'s block on every token
 * ({@link LatentAttention}: cross-attention to {@code num_latents_value} latents through
 * {@code num_cross_heads} heads of {@code cross_dim_head}, then a GEGLU feed-forward of 4 · E),
 * the mean over the tokens its pool mask keeps, and, with {@code output_normalize}, L2
 * normalization. Its encode appends the eos token to every text as text ({@code add_eos}) after
 * the instruction and the text, and masks the first {@code len(tokenize(instruction))}
 * positions out of the mean ({@code is_mask_instruction}): the job's prompt, left out of the
 * pooling as sentence-transformers leaves a prompt out ({@code include_prompt} false), counts
 * them the same way.
 */
final class NvEmbed extends DecoderFamily {
  private static final String LATENT = "latent_attention_model.";
  private static final String ATTEND = LATENT + "cross_attend_blocks.0.";
  private static final String FEED = LATENT + "cross_attend_blocks.1.";
  /** torch.nn.LayerNorm's default, which the block's norms keep. */
  private static final float NORM_EPS = 1e-5f;

  NvEmbed() {
    super(new Names("nvembed", List.of("nvembed"), "NV-Embed-v2",
        "embedding_model.", "layers.", List.of("embed_tokens.", "layers.", "norm.", LATENT),
        DecoderFamily.HEADS, "NVEmbed"), new DecoderTensors.Parts(false, false));
  }

  @Override
  public Shape shape(JsonNode config, Path file) {
    return super.shape(text(config, file), file);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    latentConfig(config, file);   // refused before anything is read when it does not fit
    return Mistral.layers(text(config, file), file, false);
  }

  @Override
  public Optional<OwnPooling> ownPooling(JsonNode config) {
    return Optional.of(new OwnPooling(Pooling.MEAN,
        config.path("latent_attention_config").path("output_normalize").asBoolean(true),
        !config.path("is_mask_instruction").asBoolean(true), config.path("add_eos")
            .asBoolean(true)));
  }

  private static JsonNode text(JsonNode config, Path file) {
    JsonNode text = config.path("text_config");
    if (!text.isObject()) {
      throw new WeightsException(file + ": an NVEmbedModel config.json without text_config");
    }
    return text;
  }

  /**
   * The latent block's sizes: latents, heads, head width; its latent_dim and hidden_dim must be
   * the text model's hidden_size (the block's norms are of that width).
   */
  private static int[] latentConfig(JsonNode config, Path file) {
    JsonNode c = config.path("latent_attention_config");
    int width = ModelFamily.positiveInt(text(config, file), "hidden_size", file);
    for (String key : List.of("latent_dim", "hidden_dim")) {
      if (c.path(key).asInt(width) != width) {
        throw new WeightsException(file + ": latent_attention_config." + key + " = "
            + c.get(key) + " is not supported (the text model's hidden_size, " + width + ")");
      }
    }
    return new int[] {ModelFamily.positiveInt(c, "num_latents_value", file),
        ModelFamily.positiveInt(c, "num_cross_heads", file),
        ModelFamily.positiveInt(c, "cross_dim_head", file)};
  }

  @Override
  public LatentAttention beforePooling(TensorNaming.TensorSource read, ModelFolder model) {
    Path file = model.folder().resolve("config.json");
    int[] sizes = latentConfig(ModelFolder.json(file), file);
    int e = model.shape().width();
    int latents = sizes[0];
    int heads = sizes[1];
    int headWidth = sizes[2];
    int inner = heads * headWidth;
    int f = 4 * e;
    float[][] contextNorm = {read.take(ATTEND + "norm_context.weight", e),
        read.take(ATTEND + "norm_context.bias", e)};
    Matrix[][] kv = LatentAttention.keysAndValues(read.take(LATENT + "latents", latents, e),
        latents, contextNorm, read.take(ATTEND + "fn.to_kv.weight", 2L * inner, e), heads,
        headWidth, NORM_EPS);
    return new LatentAttention(e, heads, headWidth,
        new float[][] {read.take(ATTEND + "norm.weight", e), read.take(ATTEND + "norm.bias", e)},
        Matrix.of(read.take(ATTEND + "fn.to_q.weight", inner, e), inner, e), kv[0], kv[1],
        Matrix.of(read.take(ATTEND + "fn.to_out.weight", e, inner), e, inner),
        new float[][] {read.take(FEED + "norm.weight", e), read.take(FEED + "norm.bias", e)},
        Matrix.of(read.take(FEED + "fn.net.0.weight", 2L * f, e), 2 * f, e),
        read.take(FEED + "fn.net.0.bias", 2L * f),
        Matrix.of(read.take(FEED + "fn.net.2.weight", e, f), e, f),
        read.take(FEED + "fn.net.2.bias", e), NORM_EPS);
  }
}
