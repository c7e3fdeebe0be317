"""The folder's sentence-transformers module: a task's adapter, the tokenizer called on the
texts as given (a stand-in written by make_jina_v5_cases.py)."""
from torch import nn


class Transformer(nn.Module):
    def tokenize(self, texts, padding=True):
        return self.tokenizer(list(texts), padding=padding, truncation=True,
                              max_length=self.max_seq_length, return_tensors="pt")
