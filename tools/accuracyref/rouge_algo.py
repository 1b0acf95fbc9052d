"""rouge_score's published algorithm (tokenize with the Porter stemmer,
n-gram, LCS and summary-level LCS F-measures) over NLTK's own
PorterStemmer: what rouge_check.py scores with and the evaluate and
rouge_score stand-ins (shims/evaluate, shims/rouge_score) compute."""
import re
from collections import Counter

from nltk.stem import porter

_stemmer = porter.PorterStemmer()


def tokenize(text):
    text = re.sub(r"[^a-z0-9]+", " ", text.lower())
    toks = re.split(r"\s+", text)
    toks = [_stemmer.stem(t) if len(t) > 3 else t for t in toks]
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


def lcs_table(ref, can):
    t = [[0] * (len(can) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(can) + 1):
            if ref[i - 1] == can[j - 1]:
                t[i][j] = t[i - 1][j - 1] + 1
            else:
                t[i][j] = max(t[i - 1][j], t[i][j - 1])
    return t


def rouge_l_scores(target, pred):
    """(precision, recall, fmeasure) of ROUGE-L."""
    if not target or not pred:
        return 0.0, 0.0, 0.0
    lcs = lcs_table(target, pred)[-1][-1]
    p, r = lcs / len(pred), lcs / len(target)
    return p, r, fmeasure(p, r)


def rouge_l(target, pred):
    return rouge_l_scores(target, pred)[2]


def lcs_ind(ref, can):
    t = lcs_table(ref, can)
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


def all_four(target_text, pred_text):
    """rouge1, rouge2, rougeL and rougeLsum F-measures of one pair."""
    pred, target = tokenize(pred_text), tokenize(target_text)
    return {"rouge1": rouge_n(target, pred, 1), "rouge2": rouge_n(target, pred, 2),
            "rougeL": rouge_l(target, pred), "rougeLsum": rouge_lsum(target_text, pred_text)}
