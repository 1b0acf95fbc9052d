"""A stand-in for rouge_score.rouge_scorer.RougeScorer(["rougeL"],
use_stemmer=True), for language/llama3.1-405b/evaluate-accuracy.py:
score(target, prediction) gives ROUGE-L's precision, recall and
F-measure, rouge_score's algorithm as tools/accuracyref/rouge_algo.py
writes it."""
import collections

Score = collections.namedtuple("Score", ["precision", "recall", "fmeasure"])


class RougeScorer:
    def __init__(self, rouge_types, use_stemmer=False):
        if list(rouge_types) != ["rougeL"] or not use_stemmer:
            raise NotImplementedError("the stand-in scores rougeL with the stemmer only")

    def score(self, target, prediction):
        from rouge_algo import rouge_l_scores, tokenize

        return {"rougeL": Score(*rouge_l_scores(tokenize(target), tokenize(prediction)))}
