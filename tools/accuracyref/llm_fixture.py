#!/usr/bin/python3
"""Writes an LLM accuracy fixture whose texts have many sentences, for
ROUGE-Lsum and gen_len: DIR/tokenizer.json (byte-level, one token per
byte: ids 3..258, <unk> <s> </s> 0..2 special, a file the tokenizers
library loads), DIR/prompts.json (N
reference outputs, punkt_check.py's generated texts) and
DIR/mlperf_log_accuracy.json (int32 token ids: each prediction its
target with sentences dropped, repeated or reordered and words changed,
special tokens among them, one qsl_idx logged twice). Fixed seed: a
rerun writes the same bytes.
Usage: llm_fixture.py DIR N SEED"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from byte_level import BYTE_CHAR  # noqa: E402
from punkt_check import WORDS, gen_text  # noqa: E402

def encode(text):
    return [3 + b for b in text.encode("utf-8")]


def perturb(rng, text):
    parts = text.split(". ")
    r = rng.random()
    if r < 0.2 and len(parts) > 1:
        parts.pop(rng.randrange(len(parts)))
    elif r < 0.4:
        rng.shuffle(parts)
    elif r < 0.5:
        parts = parts + parts[:1]
    out = ". ".join(parts)
    words = out.split(" ")
    for _ in range(rng.randint(0, 4)):
        words[rng.randrange(len(words))] = rng.choice(WORDS)
    return " ".join(words)


def main():
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    specials = ["<unk>", "<s>", "</s>"]
    vocab = {BYTE_CHAR[b]: 3 + b for b in range(256)}
    vocab.update({c: i for i, c in enumerate(specials)})  # as Llama 2's vocabulary holds them
    tok = {"version": "1.0", "truncation": None, "padding": None,
           "added_tokens": [{"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False,
                             "normalized": False, "special": True} for i, c in enumerate(specials)],
           "normalizer": None, "pre_tokenizer": None, "post_processor": None,
           "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
           "model": {"type": "BPE", "vocab": vocab, "merges": []}}
    with open(os.path.join(out, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False)
    targets = [gen_text(rng) for _ in range(count)]
    with open(os.path.join(out, "prompts.json"), "w") as f:
        json.dump([{"tok_input": [1, 3 + i % 200], "output": t} for i, t in enumerate(targets)], f, ensure_ascii=False, indent=0)
    log = []
    for i in rng.sample(range(count), count):
        ids = encode(perturb(rng, targets[i]))
        if rng.random() < 0.3:
            ids = [1] + ids + [2]
        log.append({"seq_id": len(log), "qsl_idx": i, "data": b"".join(x.to_bytes(4, "little") for x in ids).hex().upper()})
    log.append(dict(log[0], seq_id=len(log), data=encode("a repeat is not scored")[0].to_bytes(4, "little").hex().upper()))
    with open(os.path.join(out, "mlperf_log_accuracy.json"), "w") as f:
        json.dump(log, f, indent=0)


if __name__ == "__main__":
    main()
