"""A stand-in for the transformers classes the official scripts use:
BertTokenizer(vocab_file) with tokenize and convert_tokens_to_ids, BERT's
lower-casing WordPiece tokenizer (tools/accuracyref/shims/tokenization.py),
for accuracy-squad.py; AutoTokenizer.from_pretrained(checkpoint) with
decode and batch_decode(skip_special_tokens=True), the checkpoint's
tokenizer.json decoded by tools/accuracyref/hf_decode.py, for the LLM
evaluate-accuracy.py scripts."""
import os

from tokenization import FullTokenizer as BertTokenizer  # noqa: F401


class AutoTokenizer:
    @classmethod
    def from_pretrained(cls, checkpoint, **kwargs):
        from hf_decode import Decoder

        t = cls()
        t._decoder = Decoder(os.path.join(checkpoint, "tokenizer.json"))
        return t

    def decode(self, ids, skip_special_tokens=False):
        if not skip_special_tokens:
            raise NotImplementedError("the stand-in decodes with skip_special_tokens=True only")
        return self._decoder.decode(ids)

    def batch_decode(self, batch, skip_special_tokens=False):
        return [self.decode(ids, skip_special_tokens) for ids in batch]
