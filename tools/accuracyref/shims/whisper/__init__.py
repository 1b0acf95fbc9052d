"""A stand-in for openai-whisper (not installable here), enough for the
official speech2text/accuracy_eval.py: whisper.normalizers'
EnglishTextNormalizer, reimplemented for tools/accuracyref/verify.sh from
a reading of openai-whisper's normalizers (basic.py, english.py)."""
