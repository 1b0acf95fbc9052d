"""A stand-in for the transformers classes the official scripts use:

- BertTokenizer(vocab_file), for accuracy-squad.py: tokenize and
  convert_tokens_to_ids, BERT's lower-casing WordPiece tokenizer
  (tools/accuracyref/shims/tokenization.py).
- AutoTokenizer.from_pretrained(dir), for the LLM evaluate-accuracy.py
  scripts and gpt-oss-120b's eval_mlperf_accuracy.py: decode(ids,
  skip_special_tokens) and batch_decode of the dir's tokenizer.json
  ($TOKENIZER_JSON's where it is set, for a script that names a
  checkpoint of the Hub), decoded by tools/accuracyref/hf_decode.py."""
import os
import sys

from tokenization import FullTokenizer as BertTokenizer  # noqa: F401

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from hf_decode import Decoder  # noqa: E402


class AutoTokenizer:
    def __init__(self, path):
        self._decoder = Decoder(path)

    @classmethod
    def from_pretrained(cls, name, **kwargs):
        """The tokenizer.json of directory name, or the one $TOKENIZER_JSON
        names."""
        return cls(os.environ.get("TOKENIZER_JSON") or os.path.join(name, "tokenizer.json"))

    def decode(self, ids, skip_special_tokens=False):
        return self._decoder.decode(ids, skip_special_tokens)

    def batch_decode(self, sequences, skip_special_tokens=False):
        return [self.decode(ids, skip_special_tokens) for ids in sequences]
