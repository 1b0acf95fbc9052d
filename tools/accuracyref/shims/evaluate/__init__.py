"""A stand-in for Hugging Face evaluate's load("rouge"), for the LLM
evaluate-accuracy.py scripts: compute(predictions, references,
use_stemmer=True, use_aggregator=False) gives each pair's rouge1, rouge2,
rougeL and rougeLsum F-measures, rouge_score's algorithm as
tools/accuracyref/rouge_algo.py writes it."""


class _Rouge:
    def compute(self, predictions, references, use_stemmer=False, use_aggregator=True):
        from rouge_algo import all_four

        if not use_stemmer or use_aggregator:
            raise NotImplementedError("the stand-in computes use_stemmer=True, use_aggregator=False only")
        out = {"rouge1": [], "rouge2": [], "rougeL": [], "rougeLsum": []}
        for pred, ref in zip(predictions, references):
            for k, v in all_four(ref, pred).items():
                out[k].append(v)
        return out


def load(name, *args, **kwargs):
    if name != "rouge":
        raise NotImplementedError(f"the stand-in loads the rouge metric only, not {name!r}")
    return _Rouge()
