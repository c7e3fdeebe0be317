#!/usr/bin/python3
"""A golden jina-embeddings-v5-text-small folder: config.json of `model_type` jina_embeddings_v5
(architectures JinaEmbeddingsV5Model, an auto_map to its own code, `task_names`; otherwise Qwen3's
keys, its config class subclassing Qwen3Config unchanged), a random BF16 Qwen3Model checkpoint
(tensor names without a prefix), `adapters/retrieval/` and `adapters/text-matching/` as PEFT saves
them (make_task_adapter_cases.adapter: q, k, v, o, gate, up, down; retrieval r 4, alpha 16;
text-matching r 8, alpha 8 under rsLoRA), and sentence-transformers files whose first module is
the folder's own `custom_st.Transformer` (its custom_st.py beside it): it calls the tokenizer on the
texts as given, so they are not stripped (a plain Transformer module would strip them), and its
source has no strip for the job to find; last-token pooling, Normalize,
prompts `Query: ` and `Document: `.

The reference is the float64 Qwen3 port (family_cases.decoder, causal as JinaEmbeddingsV5Model's
Qwen3 is) on the weights merged as vLLM's jina.py merges them at load, W + (alpha / r) · B · A;
texts.json holds the retrieval task's documents, texts-text-matching.json the other task's; both
with the `Document: ` prompt and the texts unstripped.

Usage (Debian's python3-torch; node with npm's tokenizers@0.13.3 in /tmp/tok13):
  /usr/bin/python3 jobs/samples/make_jina_v5_cases.py src/test/resources/qwen3-cases
"""
import json, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_cases import case_folder, random_decoder, store, write_last_token_pipeline  # noqa

from make_bert_cases import write_safetensors  # noqa: E402
from make_qwen3_cases import tokenizer_json  # noqa: E402
from make_task_adapter_cases import C, write_task_references  # noqa: E402


# The folder's own module, as the job reads it (never runs it): its tokenize hands the texts to
# the tokenizer as they are, with no strip (the job looks for one in this source).
CUSTOM_ST = '''"""The folder's sentence-transformers module: a task's adapter, the tokenizer called on the
texts as given (a stand-in written by make_jina_v5_cases.py)."""
from torch import nn


class Transformer(nn.Module):
    def tokenize(self, texts, padding=True):
        return self.tokenizer(list(texts), padding=padding, truncation=True,
                              max_length=self.max_seq_length, return_tensors="pt")
'''


def main(out):
    rng = np.random.default_rng(20261130)
    folder = case_folder(out, "jina-v5-small")
    tokenizer = os.path.join(folder, "tokenizer.json")
    content, size = tokenizer_json()
    json.dump(content, open(tokenizer, "w", encoding="utf-8"), ensure_ascii=False)
    c = dict(C, V=size)
    tensors, w = store(random_decoder(c, rng), "BF16")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    config = json.load(open(os.path.join(out, "qwen3-tasks", "config.json")))
    config.update({"architectures": ["JinaEmbeddingsV5Model"], "model_type": "jina_embeddings_v5",
                   "auto_map": {"AutoConfig": "configuration_jina_embeddings_v5."
                                "JinaEmbeddingsV5Config",
                                "AutoModel": "modeling_jina_embeddings_v5.JinaEmbeddingsV5Model"},
                   "task_names": ["retrieval", "text-matching", "clustering", "classification"],
                   "transformers_version": "4.57.1"})
    json.dump(config, open(os.path.join(folder, "config.json"), "w"), indent=2)
    write_last_token_pipeline(folder, c["E"], 32768, {"query": "Query: ", "document": "Document: "})
    modules = json.load(open(os.path.join(folder, "modules.json")))
    modules[0]["type"] = "custom_st.Transformer"
    json.dump(modules, open(os.path.join(folder, "modules.json"), "w"), indent=2)
    with open(os.path.join(folder, "custom_st.py"), "w") as f:
        f.write(CUSTOM_ST)
    write_task_references(folder, tokenizer, c, w, rng, strip=False)
    print(f"{folder}: jina_embeddings_v5, tasks retrieval and text-matching, vocabulary {size}")


if __name__ == "__main__":
    main(sys.argv[1])
