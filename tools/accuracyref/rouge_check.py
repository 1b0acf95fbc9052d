#!/usr/bin/python3
"""Scores an LLM accuracy log as language/llama2-70b/evaluate-accuracy.py
(or, with --script evaluation, language/llama3.1-8b/evaluation.py) does,
where Debian lacks what it imports: transformers' batch_decode is a
tokenizer.json byte-level/metaspace decoder with special tokens skipped
(and clean_up_tokenization_spaces from tokenizer_config.json beside it);
nltk.sent_tokenize is NLTK's own PunktSentenceTokenizer (Debian's
python3-nltk) built from the English parameters mlperf-host embeds
(--punkt: github.com/neurosnap/sentences' data/english.json), as NLTK's
trained data is not here; evaluate's "rouge" is rouge_score's published
algorithm (tokenize, n-gram, LCS and summary-level LCS F-measures) over
NLTK's own PorterStemmer, aggregated with numpy as the script does.
Usage: rouge_check.py LOG PROMPTS.json TOKENIZER.json [int32|int64]
       --punkt ENGLISH.json [--script evaluate-accuracy|evaluation]"""
import argparse
import json
import os
import re
from collections import Counter, defaultdict

import numpy as np
from byte_level import BYTE_CHAR
from nltk.stem import porter
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

ap = argparse.ArgumentParser()
ap.add_argument("log")
ap.add_argument("prompts")
ap.add_argument("tokenizer")
ap.add_argument("dtype", nargs="?", default="int64", choices=["int32", "int64"])
ap.add_argument("--punkt", required=True)
ap.add_argument("--script", default="evaluate-accuracy", choices=["evaluate-accuracy", "evaluation"])
args = ap.parse_args()
log_path, prompts_path, tok_path = args.log, args.prompts, args.tokenizer
dtype = np.int32 if args.dtype == "int32" else np.int64

pd = json.load(open(args.punkt))
punkt_params = PunktParameters()
punkt_params.abbrev_types = set(pd["AbbrevTypes"])
punkt_params.collocations = {tuple(k.split(",")) for k in pd["Collocations"]}
punkt_params.sent_starters = set(pd["SentStarters"])
punkt_params.ortho_context = defaultdict(int, pd["OrthoContext"])
sent_tokenize = PunktSentenceTokenizer(punkt_params).tokenize

tj = json.load(open(tok_path))
id_to_tok = {i: t for t, i in tj["model"]["vocab"].items()}
special = set()
for a in tj.get("added_tokens", []):
    id_to_tok[a["id"]] = a["content"]
    if a.get("special"):
        special.add(a["id"])
cfg = os.path.join(os.path.dirname(tok_path), "tokenizer_config.json")
clean_up = os.path.exists(cfg) and json.load(open(cfg)).get("clean_up_tokenization_spaces", False)

char_to_byte = {c: b for b, c in BYTE_CHAR.items()}


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


def lcs_ind(ref, can):
    t = [[0] * (len(can) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(can) + 1):
            if ref[i - 1] == can[j - 1]:
                t[i][j] = t[i - 1][j - 1] + 1
            else:
                t[i][j] = max(t[i - 1][j], t[i][j - 1])
    i, j, lcs = len(ref), len(can), []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            lcs.insert(0, i - 1)
            i, j = i - 1, j - 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return lcs


def rouge_lsum(target_text, pred_text):
    ref_sent = [tokenize(s) for s in target_text.split("\n") if len(s)]
    can_sent = [tokenize(s) for s in pred_text.split("\n") if len(s)]
    if not ref_sent or not can_sent:
        return 0.0
    m, n = sum(map(len, ref_sent)), sum(map(len, can_sent))
    if not n or not m:
        return 0.0
    cnt_r, cnt_c = Counter(), Counter()
    for s in ref_sent:
        cnt_r.update(s)
    for s in can_sent:
        cnt_c.update(s)
    hits = 0
    for r in ref_sent:
        union = sorted(set().union(*[lcs_ind(r, c) for c in can_sent]))
        for t in [r[i] for i in union]:
            if cnt_c[t] > 0 and cnt_r[t] > 0:
                hits += 1
                cnt_c[t] -= 1
                cnt_r[t] -= 1
    return fmeasure(hits / n, hits / m)


def postprocess(text):
    return "\n".join(sent_tokenize(text.strip()))


prompts = json.load(open(prompts_path))
if isinstance(prompts, dict):
    targets = [prompts["output"][k] for k in sorted(prompts["output"], key=int)]
else:
    targets = [r["output"] for r in prompts]
seen, scores, gen_tok_len, gen_len = set(), {"rouge1": [], "rouge2": [], "rougeL": [], "rougeLsum": []}, 0, 0
for e in json.load(open(log_path)):
    if e["qsl_idx"] in seen:
        continue
    seen.add(e["qsl_idx"])
    ids = np.frombuffer(bytes.fromhex(e["data"]), dtype)
    gen_tok_len += len(ids)
    pred_text, target_text = postprocess(decode(ids)), postprocess(targets[e["qsl_idx"]])
    gen_len += len(pred_text)
    pred, target = tokenize(pred_text), tokenize(target_text)
    scores["rouge1"].append(rouge_n(target, pred, 1))
    scores["rouge2"].append(rouge_n(target, pred, 2))
    scores["rougeL"].append(rouge_l(target, pred))
    scores["rougeLsum"].append(rouge_lsum(target_text, pred_text))
if args.script == "evaluation":
    result = {k: f"{round(np.mean(v) * 100, 4)}" for k, v in scores.items()}
    result.update({"gen_len": int(gen_len), "gen_num": len(seen)})
else:
    result = {k: float(round(np.mean(v) * 100, 4)) for k, v in scores.items()}
    result.update({"gen_len": int(gen_len), "gen_num": len(seen), "gen_tok_len": gen_tok_len,
                   "tokens_per_sample": round(gen_tok_len / len(seen), 1)})
print(result)
