#!/usr/bin/python3
"""Scores an LLM accuracy log as language/llama2-70b/evaluate-accuracy.py
does, where Debian lacks what it imports: transformers' batch_decode is
a tokenizer.json byte-level/metaspace decoder with special tokens
skipped (and clean_up_tokenization_spaces from tokenizer_config.json),
evaluate's "rouge" is rouge_score's published algorithm (tokenize,
n-gram and LCS F-measures) over NLTK's own PorterStemmer, aggregated
with numpy as the script does. rougeLsum and gen_len need NLTK's Punkt
data and are left out, as mlperf-host leaves them out.
Usage: rouge_check.py LOG PROMPTS.json TOKENIZER.json [int32|int64]"""
import json
import os
import re
import sys

import numpy as np
from nltk.stem import porter

log_path, prompts_path, tok_path = sys.argv[1:4]
dtype = np.int32 if len(sys.argv) > 4 and sys.argv[4] == "int32" else np.int64

tj = json.load(open(tok_path))
id_to_tok = {i: t for t, i in tj["model"]["vocab"].items()}
special = set()
for a in tj.get("added_tokens", []):
    id_to_tok[a["id"]] = a["content"]
    if a.get("special"):
        special.add(a["id"])
cfg = os.path.join(os.path.dirname(tok_path), "tokenizer_config.json")
clean_up = os.path.exists(cfg) and json.load(open(cfg)).get("clean_up_tokenization_spaces", False)

# GPT-2's bytes_to_unicode, inverted.
bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
cs = bs[:]
n = 0
for b in range(256):
    if b not in bs:
        bs.append(b)
        cs.append(256 + n)
        n += 1
char_to_byte = {chr(c): b for b, c in zip(bs, cs)}


def decode(ids):
    toks = [id_to_tok[int(i)] for i in ids if int(i) not in special]
    kind = tj["decoder"]["type"]
    if kind == "ByteLevel":
        out = bytearray()
        for t in toks:
            if all(c in char_to_byte for c in t):
                out += bytes(char_to_byte[c] for c in t)
            else:
                out += t.encode()
        s = out.decode("utf-8", errors="replace")
    else:
        s = "".join(toks).replace("\u2581", " ")
        s = s[1:] if s.startswith(" ") else s
    if clean_up:
        for a, b in [(" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
                     (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")]:
            s = s.replace(a, b)
    return s


stemmer = porter.PorterStemmer()


def tokenize(text):
    text = re.sub(r"[^a-z0-9]+", " ", text.lower())
    toks = re.split(r"\s+", text)
    toks = [stemmer.stem(t) if len(t) > 3 else t for t in toks]
    return [t for t in toks if re.match(r"^[a-z0-9]+$", t)]


def fmeasure(p, r):
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def ngrams(toks, n):
    out = {}
    for i in range(len(toks) - n + 1):
        g = tuple(toks[i:i + n])
        out[g] = out.get(g, 0) + 1
    return out


def rouge_n(target, pred, n):
    t, p = ngrams(target, n), ngrams(pred, n)
    inter = sum(min(c, p.get(g, 0)) for g, c in t.items())
    return fmeasure(inter / max(sum(p.values()), 1), inter / max(sum(t.values()), 1))


def rouge_l(target, pred):
    if not target or not pred:
        return 0.0
    table = [[0] * (len(pred) + 1) for _ in range(len(target) + 1)]
    for i in range(1, len(target) + 1):
        for j in range(1, len(pred) + 1):
            if target[i - 1] == pred[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    lcs = table[-1][-1]
    return fmeasure(lcs / len(pred), lcs / len(target))


prompts = json.load(open(prompts_path))
if isinstance(prompts, dict):
    targets = [prompts["output"][k] for k in sorted(prompts["output"], key=int)]
else:
    targets = [r["output"] for r in prompts]
seen, scores, gen_tok_len = set(), {"rouge1": [], "rouge2": [], "rougeL": []}, 0
for e in json.load(open(log_path)):
    if e["qsl_idx"] in seen:
        continue
    seen.add(e["qsl_idx"])
    ids = np.frombuffer(bytes.fromhex(e["data"]), dtype)
    gen_tok_len += len(ids)
    pred, target = tokenize(decode(ids).strip()), tokenize(targets[e["qsl_idx"]].strip())
    scores["rouge1"].append(rouge_n(target, pred, 1))
    scores["rouge2"].append(rouge_n(target, pred, 2))
    scores["rougeL"].append(rouge_l(target, pred))
result = {k: round(np.mean(v) * 100, 4) for k, v in scores.items()}
result.update({"gen_num": len(seen), "gen_tok_len": gen_tok_len, "tokens_per_sample": round(gen_tok_len / len(seen), 1)})
print(result)
