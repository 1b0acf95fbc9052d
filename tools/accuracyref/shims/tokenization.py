"""BERT's basic tokenizer (the module accuracy-squad.py imports from the
DeepLearningExamples submodule, which a plain checkout lacks), written from
the published BERT tokenization rules: drop control characters, spaces
around CJK characters, lower case, strip accents (NFD, no Mn), split on
punctuation."""
import unicodedata


def convert_to_unicode(text):
    return text.decode("utf-8", "ignore") if isinstance(text, bytes) else text


def printable_text(text):
    return convert_to_unicode(text)


def whitespace_tokenize(text):
    return text.strip().split()


def _is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch):
    return ch not in "\t\n\r" and unicodedata.category(ch).startswith("C")


def _is_punctuation(ch):
    cp = ord(ch)
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or \
        unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return any(lo <= cp <= hi for lo, hi in (
        (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


class BasicTokenizer:
    def __init__(self, do_lower_case=True):
        self.do_lower_case = do_lower_case

    def tokenize(self, text):
        chars = []
        for ch in convert_to_unicode(text):
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or _is_control(ch):
                continue
            if _is_whitespace(ch):
                chars.append(" ")
            elif _is_cjk(cp):
                chars.extend((" ", ch, " "))
            else:
                chars.append(ch)
        out = []
        for tok in whitespace_tokenize("".join(chars)):
            if self.do_lower_case:
                tok = "".join(c for c in unicodedata.normalize("NFD", tok.lower())
                              if unicodedata.category(c) != "Mn")
            word = ""
            for ch in tok:
                if _is_punctuation(ch):
                    if word:
                        out.append(word)
                    out.append(ch)
                    word = ""
                else:
                    word += ch
            if word:
                out.append(word)
        return whitespace_tokenize(" ".join(out))


class WordpieceTokenizer:
    def __init__(self, vocab, unk_token="[UNK]", max_chars=100):
        self.vocab, self.unk, self.max_chars = vocab, unk_token, max_chars

    def tokenize(self, text):
        out = []
        for word in whitespace_tokenize(text):
            if len(word) > self.max_chars:
                out.append(self.unk)
                continue
            pieces, start = [], 0
            while start < len(word):
                for end in range(len(word), start, -1):
                    piece = ("##" if start else "") + word[start:end]
                    if piece in self.vocab:
                        break
                else:
                    pieces = [self.unk]
                    break
                pieces.append(piece)
                start = end
            out.extend(pieces)
        return out


def load_vocab(path):
    vocab = {}
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            tok = line.rstrip("\n")
            if tok and tok not in vocab:
                vocab[tok] = i
    return vocab


class FullTokenizer:
    def __init__(self, vocab_file, do_lower_case=True):
        self.vocab = load_vocab(vocab_file)
        self.basic = BasicTokenizer(do_lower_case)
        self.wordpiece = WordpieceTokenizer(self.vocab)

    def tokenize(self, text):
        return [p for t in self.basic.tokenize(text) for p in self.wordpiece.tokenize(t)]

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab[t] for t in tokens]
