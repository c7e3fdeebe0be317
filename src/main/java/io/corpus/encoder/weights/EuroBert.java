package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import java.nio.file.Path;
import java.util.List;

/**
 * EuroBERT (EuroBERT-210m, 610m, 2.1B; the encoder of jina-embeddings-v5-text-nano), as
 * transformers' {@code modeling_eurobert.py} computes it: Llama's layers ({@link Llama}) without
 * q/k norms, attending both ways with a key-padding mask only ({@code EuroBertAttention} sets
 * {@code is_causal = False}), rotary base {@code rope_theta} and norm eps {@code rms_norm_eps}
 * (250,000 and 1e-5 when absent, as in EuroBertConfig), a final {@code norm}.
 * {@code EuroBertForMaskedLM} stores the encoder under {@code model.} beside its untied
 * {@code lm_head}, which the job leaves out and lists. The classifier
 * ({@code EuroBertForSequenceClassification}: dense, GELU, out_proj over pooled or per-token
 * states) is not read.
 */
final class EuroBert extends DecoderFamily {
  EuroBert() {
    super(DecoderFamily.names("eurobert", List.of("eurobert"),
        "EuroBERT-210m, 610m, 2.1B").withoutHead().withCustomCode("EuroBert"),
        new DecoderTensors.Parts(true, false));
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    return Llama.layers(config, 250_000, 1e-5, true, file);
  }
}
