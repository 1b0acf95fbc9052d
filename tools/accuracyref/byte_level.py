"""GPT-2's bytes_to_unicode, which byte-level tokenizers (Llama 3's) use:
BYTE_CHAR maps each byte to the character standing for it in a token."""


def _byte_char():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


BYTE_CHAR = _byte_char()
