"""A stand-in for Google's rouge_score (see rouge_scorer)."""
