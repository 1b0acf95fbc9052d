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
Usage: llm_fixture.py DIR N SEED [mixtral|llama405b]

With mixtral or llama405b it writes, instead of prompts.json, DIR/data.pkl:
the benchmark's data set as pandas pickles it (Mixtral's OpenOrca, GSM8K
and MBXP rows, the MBXP ones left out of the log; Llama 3.1 405B's rouge,
niah_em and qa_em rows), the log's texts generated to hit and miss each
metric's rules."""
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


def write_tokenizer(out):
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


def write_log(out, rng, order, pred):
    """Logs sample i's generated text pred(i), for i in order."""
    log = []
    for i in order:
        ids = encode(pred(i))
        if rng.random() < 0.3:
            ids = [1] + ids + [2]
        log.append({"seq_id": len(log), "qsl_idx": i, "data": b"".join(x.to_bytes(4, "little") for x in ids).hex().upper()})
    log.append(dict(log[0], seq_id=len(log), data=encode("a repeat is not scored")[0].to_bytes(4, "little").hex().upper()))
    with open(os.path.join(out, "mlperf_log_accuracy.json"), "w") as f:
        json.dump(log, f, indent=0)


DIGITS = ["0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"]


def gsm8k_row(rng):
    n = rng.randint(-50, 100000)
    target = str(n) if rng.random() < 0.8 else f"{n}.0"
    answer = n if rng.random() < 0.6 else n + rng.randint(1, 9)
    shown = f"{answer:,}" if rng.random() < 0.5 else str(answer)
    if rng.random() < 0.1:
        shown = shown.translate(str.maketrans(DIGITS[0], DIGITS[1]))
    steps = " ".join(f"{rng.randint(1, 99)} + {rng.randint(1, 99)} = {rng.randint(1, 200)}." for _ in range(rng.randint(0, 3)))
    r = rng.random()
    if r < 0.5:
        pred = f"{steps} The answer is {shown}."
    elif r < 0.65:
        pred = f"{steps} So {shown} in all.\nQ: And {rng.randint(1, 9)} more? The answer is {rng.randint(1, 9)}."
    elif r < 0.8:
        pred = f"{steps} The answer is: many. Total {shown}"
    elif r < 0.9:
        pred = f"{shown} is it"
    else:
        pred = "I cannot tell."
    return target, pred


def uuid(rng):
    h = "0123456789abcdef"
    return "-".join("".join(rng.choice(h) for _ in range(k)) for k in (8, 4, 4, 4, 12))


def niah_row(rng):
    ids = [uuid(rng) for _ in range(rng.randint(1, 3))]
    target = "The special magic numbers are: " + ", ".join(ids) + "."
    got = []
    for u in ids:
        r = rng.random()
        if r < 0.4:
            got.append(u)
        elif r < 0.6:
            got.append(u.upper())
        elif r < 0.8:
            got.append(uuid(rng))
    if rng.random() < 0.2:
        got.append(uuid(rng))
    return target, "The numbers are " + " and ".join(got) + "." if got else "I found none."


def qa_row(rng):
    answers = [rng.choice(WORDS) + " " + rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
    target = "|".join(answers)
    r = rng.random()
    if r < 0.3:
        pred = f"Let me think. Answer: {answers[0]}"
    elif r < 0.5:
        pred = f"Answer: it is {answers[-1].upper().replace(' ', '  ')} for sure"
    elif r < 0.7:
        pred = f"The answer is {rng.choice(WORDS)}."
    elif r < 0.8:
        pred = "Answer: "
    else:
        pred = f"Answer: no. Answer: {rng.choice(WORDS)}"
    return target, pred


def write_set(out, count, rng, kind):
    import pandas as pd

    rows, preds = [], {}
    for i in range(count):
        r = rng.random()
        if kind == "mixtral":
            if r < 0.45:
                target = gen_text(rng)
                rows.append({"dataset": "OpenOrca", "id": f"orca_{i}", "gt_output": target})
                preds[i] = perturb(rng, target)
            elif r < 0.95:
                target, preds[i] = gsm8k_row(rng)
                rows.append({"dataset": "GSM8K", "id": f"gsm8k_{i}", "gt_output": target})
            else:  # MBXP: left out of the log
                rows.append({"dataset": "MBXP", "id": f"python_f{i}", "gt_output": "assert f() == 1\n"})
        else:
            if r < 0.4:
                target = gen_text(rng)
                rows.append({"metric": "rouge", "gt_output": target})
                preds[i] = perturb(rng, target)
            elif r < 0.7:
                target, preds[i] = niah_row(rng)
                rows.append({"metric": "niah_em", "gt_output": target})
            else:
                target, preds[i] = qa_row(rng)
                rows.append({"metric": "qa_em", "gt_output": target})
        rows[-1]["input"] = f"prompt {i}"
        rows[-1]["tok_input"] = [1, 3 + i % 200]
    pd.DataFrame(rows).to_pickle(os.path.join(out, "data.pkl"))
    write_log(out, rng, rng.sample(sorted(preds), len(preds)), preds.get)


def main():
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    write_tokenizer(out)
    if len(sys.argv) > 4:
        write_set(out, count, rng, sys.argv[4])
        return
    targets = [gen_text(rng) for _ in range(count)]
    with open(os.path.join(out, "prompts.json"), "w") as f:
        json.dump([{"tok_input": [1, 3 + i % 200], "output": t} for i, t in enumerate(targets)], f, ensure_ascii=False, indent=0)
    write_log(out, rng, rng.sample(range(count), count), lambda i: perturb(rng, targets[i]))


if __name__ == "__main__":
    main()
