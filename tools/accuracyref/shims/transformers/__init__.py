"""A stand-in for the one transformers class accuracy-squad.py uses:
BertTokenizer(vocab_file) with tokenize and convert_tokens_to_ids, BERT's
lower-casing WordPiece tokenizer (tools/accuracyref/shims/tokenization.py)."""
from tokenization import FullTokenizer as BertTokenizer  # noqa: F401
