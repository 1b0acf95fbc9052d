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
from collections import defaultdict

import numpy as np
from hf_decode import Decoder
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
from rouge_algo import all_four

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

decode = Decoder(tok_path).decode


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
    for k, v in all_four(target_text, pred_text).items():
        scores[k].append(v)
if args.script == "evaluation":
    result = {k: f"{round(np.mean(v) * 100, 4)}" for k, v in scores.items()}
    result.update({"gen_len": int(gen_len), "gen_num": len(seen)})
else:
    result = {k: float(round(np.mean(v) * 100, 4)) for k, v in scores.items()}
    result.update({"gen_len": int(gen_len), "gen_num": len(seen), "gen_tok_len": gen_tok_len,
                   "tokens_per_sample": round(gen_tok_len / len(seen), 1)})
print(result)
