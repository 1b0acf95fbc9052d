"""transformers' decode(ids, skip_special_tokens) of a tokenizer.json
(byte-level or metaspace), with clean_up_tokenization_spaces from the
tokenizer_config.json beside it: what rouge_check.py and the transformers
stand-in (shims/transformers) decode with. Each token (an added token's
content, a vocabulary entry) stands for the bytes its characters map back
to (GPT-2's bytes_to_unicode), or its own UTF-8 where one does not map,
undecodable UTF-8 replaced; ids the tokenizer lacks are left out, as the
fast tokenizers leave them."""
import json
import os

from byte_level import BYTE_CHAR

_CHAR_TO_BYTE = {c: b for b, c in BYTE_CHAR.items()}
_CLEAN_UP = [(" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
             (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")]


class Decoder:
    def __init__(self, tok_path):
        self.tj = json.load(open(tok_path))
        self.id_to_tok = {i: t for t, i in self.tj["model"]["vocab"].items()}
        self.special = set()
        for a in self.tj.get("added_tokens", []):
            self.id_to_tok[a["id"]] = a["content"]
            if a.get("special"):
                self.special.add(a["id"])
        cfg = os.path.join(os.path.dirname(tok_path), "tokenizer_config.json")
        self.clean_up = os.path.exists(cfg) and json.load(open(cfg)).get("clean_up_tokenization_spaces", False)

    def decode(self, ids, skip_special_tokens=True):
        toks = [self.id_to_tok[int(i)] for i in ids
                if int(i) in self.id_to_tok and not (skip_special_tokens and int(i) in self.special)]
        if self.tj["decoder"]["type"] == "ByteLevel":
            out = bytearray()
            for t in toks:
                if all(c in _CHAR_TO_BYTE for c in t):
                    out += bytes(_CHAR_TO_BYTE[c] for c in t)
                else:
                    out += t.encode()
            s = out.decode("utf-8", errors="replace")
        else:
            s = "".join(toks).replace("\u2581", " ")
            s = s[1:] if s.startswith(" ") else s
        if self.clean_up:
            for a, b in _CLEAN_UP:
                s = s.replace(a, b)
        return s
