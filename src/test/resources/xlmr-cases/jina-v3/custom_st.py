"""The folder's sentence-transformers module (a stand-in written by make_jina_v3_cases.py):
the task's adapter by its index, and sentence-transformers' tokenize, which strips each text."""
from torch import nn


class Transformer(nn.Module):
    def tokenize(self, texts, padding=True):
        to_tokenize = [[str(s).strip() for s in texts]]
        return self.tokenizer(*to_tokenize, padding=padding, truncation="longest_first",
                              return_tensors="pt", max_length=self.max_seq_length)
