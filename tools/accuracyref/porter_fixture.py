#!/usr/bin/python3
"""Writes internal/benchlib/rouge/testdata/porter/stems.txt: one "word stem" line
per word read from stdin (one a line) plus Porter's paper's examples, the
stem being NLTK's PorterStemmer() (NLTK_EXTENSIONS, what rouge_score uses).
Usage: tools/accuracyref/porter_fixture.py < words.txt"""
import sys
from nltk.stem import porter

PAPER = """caresses ponies ties caress cats feed agreed plastered bled motoring sing
conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky
relational conditional rational valenci hesitanci digitizer conformabli radicalli
differentli vileli analogousli vietnamization predication operator feudalism decisiveness
hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize
electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic
adjustable defensible irritant replacement adjustment dependent adoption homologou
communism activate angulariti homologous effective bowdlerize probate rate cease
controll roll generalizations dying lying tying innings skies news geology theology
carefully dies died spied fully archaeology""".split()

stemmer = porter.PorterStemmer()
words = sorted(set(PAPER) | {w.strip() for w in sys.stdin if w.strip()})
with open("internal/benchlib/rouge/testdata/porter/stems.txt", "w") as f:
    for w in words:
        f.write(f"{w} {stemmer.stem(w)}\n")
