#!/usr/bin/python3
"""Splits texts into sentences with NLTK's own PunktSentenceTokenizer
(Debian's python3-nltk: the algorithm, without NLTK's trained data),
built from the English parameters internal/benchlib/punkt embeds
(github.com/neurosnap/sentences' data/english.json, read into NLTK's
PunktParameters), and writes each text with its sentences as JSON, the
golden form internal/benchlib/punkt's TestSentencesNLTK reads.

Usage:
  punkt_check.py ENGLISH.json fixture OUT.json   the curated texts below
  punkt_check.py ENGLISH.json random N SEED OUT.json
      N generated texts: abbreviations, initials, numbers, quotes,
      brackets, ellipses, line breaks, non-ASCII letters and spaces
  punkt_check.py ENGLISH.json chars N SEED OUT.json
      N strings of random characters from the ones Punkt decides on
      (ends, quotes, brackets, hyphens, commas, Unicode spaces and
      letters) and words of its parameters
  punkt_check.py ENGLISH.json files OUT.json FILE...
      the paragraphs of real text files (Markdown, READMEs)
  punkt_check.py ENGLISH.json tab DIR
      writes the parameters as NLTK 3.9's punkt_tab/english directory
  punkt_check.py ENGLISH.json nltk_data DIR
      writes an NLTK data directory (NLTK_DATA=DIR) whose English Punkt
      tokenizer is built from the parameters: tokenizers/punkt/english.pickle
      and its PY3/ copy (NLTK 3.8's nltk.sent_tokenize loads it) and
      tokenizers/punkt_tab/english (NLTK 3.9's)"""
import json
import os
import random
import sys
from collections import defaultdict

from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer


def params(path):
    d = json.load(open(path))
    p = PunktParameters()
    p.abbrev_types = set(d["AbbrevTypes"])
    p.collocations = {tuple(k.split(",")) for k in d["Collocations"]}
    p.sent_starters = set(d["SentStarters"])
    p.ortho_context = defaultdict(int, d["OrthoContext"])
    return p


FIXTURE = [
    "Mr. Smith went to Washington. He arrived at 5 p.m. on Jan. 3rd.",
    "Punkt knows that the periods in Mr. Smith and Johann S. Bach\ndo not mark sentence boundaries.  And sometimes sentences\ncan start with non-capitalized words.  i is a good variable\nname.",
    '(How does it deal with this parenthesis?)  "It should be part of the\nprevious sentence." "(And the same with this one.)" (\'And this one!\')\n"(\'(And (this)) \'?)" [(and this. )]',
    "The U.S. economy grew 3.5% in 2023. Dr. Jones disagreed.",
    "Very bad acting!!! I promise. Really?! Yes.",
    "He said... nothing. Then . . . he left. Wait.. what?",
    "Prices rose to $1,000.50 on Monday. Analysts expect 12. That's all.",
    "The company, Acme Inc., reported earnings. Its C.E.O. resigned.",
    "J. R. R. Tolkien wrote books. E. B. White too.",
    "She lives on St. James St. in London. It's nice.",
    "First line\n\nSecond paragraph. With two sentences.\n",
    "Is it 5 p.m. already? No -- it is 4. Good.",
    "\"Stop.\" She said. 'Go!' he replied.",
    "Ünïcödé text. Ölçü İstanbul. Çok güzel.",
    "Number 5. Item 6. The end.",
    "No sentence end here",
    "   Leading and trailing spaces.   Another one.   ",
    "A.B.C. Corp. and X.Y.Z. Ltd. merged. The deal closed.",
    "Ellipsis at end...",
    "Tabs\tinside. And\u00a0non-breaking\u00a0spaces. Then\u2028a line separator.",
    "",
    ".",
    "?!",
    "Call me at 555-1234. Or not.",
    "Sen. Warren and Rep. Smith met Gen. Lee. They talked.",
    "Text with a quote: \"He left.\" Then more text.",
    "Brackets [like this.] and {these!} end. Next.",
    "The temperature was 20 deg. Celsius. Everyone agreed.",
    "1. First item. 2. Second item. 3. Third item.",
    "He was born in the U.S.A. In 1990 he moved.",
    "He works at I.B.M. in N.Y. Mr. Brown agrees.",
]

WORDS = ("the a of to and in that is was he she it for on are as with his they at be this from I have or by one had "
         "not but what all were when we there can an your which their said if do will each about how up out them "
         "then many some so these would other into has more her two like him see time could no make than first "
         "been its who now people my made over did down only way find use may water long little very after words "
         "called just where most know get through back much before go good new write our used me man too any day "
         "same right look think also around another came come work three word must because does part even place "
         "well such here take why things help put years different away again off went old number great tell men say "
         "small every found still between name should home big give air line set own under read last never us left "
         "end along while might next sound below saw something thought both few those always looked show large often "
         "together asked house don't world going want school important until form food keep children feet land side "
         "without boy once animals life enough took sometimes four head above kind began almost live page got earth "
         "need far hand high year mother light parts country father let night following picture being study second "
         "eyes soon times story boys since white days ever paper hard near sentence better best across during today "
         "others however sure means knew it's try told young miles sun ways thing whole hear example heard several "
         "change answer room sea against top turned learn point city play toward five using himself usually").split()
CAPS = ("Smith Jones Washington London Paris Monday January Acme Google Apple Brown Lee Warren Bach Tolkien "
        "Although But However Meanwhile Separately Yet So Indeed Moreover Nevertheless Some Many The This These "
        "They He She It In When While Since Under Among").split()
ABBR = ("Mr. Mrs. Ms. Dr. Prof. Sen. Rep. Gen. Col. Lt. St. Jr. Sr. Inc. Corp. Co. Ltd. Bros. U.S. U.K. U.N. "
        "U.S.A. N.Y. D.C. Calif. Fla. Jan. Feb. Aug. Sept. Oct. Nov. Dec. vs. p.m. a.m. e.g. i.e. etc. Ph.D. "
        "No. Fig. approx. Ave.").split()
NONASCII = "café naïve Zürich İstanbul Ölçü résumé coöperate Ελλάδα Москва 東京 straße".split()
SPACES = [" ", " ", " ", " ", "  ", "\n", "\n\n", "\t", "\u00a0", " \n "]
ENDS = [".", ".", ".", ".", "?", "!", "...", "!!", "?!", ". . .", ".\"", ".)", "!'", ".]", "?\"", ".'\""]
OPEN = ["", "", "", "", "", "\"", "(", "'", "[", "\"("]


def gen_word(rng):
    r = rng.random()
    if r < 0.55:
        return rng.choice(WORDS)
    if r < 0.68:
        return rng.choice(CAPS)
    if r < 0.80:
        return rng.choice(ABBR)
    if r < 0.86:
        return rng.choice(["3", "12", "1,000", "3.5", "2024", "5.", "-7", "42%", "$9.99", "1990s", "4th"])
    if r < 0.90:
        return rng.choice("ABCDEFGHJKLMNPRSTW") + "."
    if r < 0.94:
        return rng.choice(NONASCII)
    if r < 0.97:
        return rng.choice(["--", ",", ";", ":", "-", "(see", "above)", "\"quoted\"", "'single'", "x-ray"])
    return rng.choice(WORDS) + rng.choice([",", ";", ":", "."])


def gen_text(rng):
    out = []
    for _ in range(rng.randint(1, 8)):
        n = rng.randint(1, 14)
        ws = [gen_word(rng) for _ in range(n)]
        if rng.random() < 0.7:
            ws[0] = ws[0][:1].upper() + ws[0][1:]
        s = rng.choice(OPEN) + " ".join(ws) + rng.choice(ENDS)
        out.append(s)
        out.append(rng.choice(SPACES))
    text = "".join(out)
    if rng.random() < 0.2:
        text = rng.choice(["", " ", "\n", "  "]) + text
    if rng.random() < 0.3:
        text = text.rstrip()
    return text


CHARS = list(".?!\"')]}([{-,;:*@&#`$%_0123456789aAbBiIjJsS \t\r\x0b\x0c\x1c\x1f\x85\xa0\u2000\u2028\u3000\u180e"
             "\u0130\u00e9\u00c9\u01c5\u2160\u24b6\u00b2\u0660\u0391\u03c3\u03a3") + [
    " Mr.", " U.S.", " the", " The", " However", " he", " ...", " . . .", " --", " 5.", " 12", " J.", " co.", "\n", "\n\n"]


def gen_chars(rng):
    return "".join(rng.choice(CHARS) for _ in range(rng.randint(0, 40)))


def paragraphs(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    return [p for p in text.split("\n\n") if p.strip()]


def main():
    tok = PunktSentenceTokenizer(params(sys.argv[1]))
    mode = sys.argv[2]
    if mode == "nltk_data":
        import pickle

        for d in [os.path.join(sys.argv[3], "tokenizers", "punkt"), os.path.join(sys.argv[3], "tokenizers", "punkt", "PY3")]:
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "english.pickle"), "wb") as f:
                pickle.dump(tok, f)
        sys.argv[2:4] = ["tab", os.path.join(sys.argv[3], "tokenizers", "punkt_tab", "english")]
        mode = "tab"
    if mode == "tab":
        d = sys.argv[3]
        os.makedirs(d, exist_ok=True)
        p = params(sys.argv[1])
        with open(os.path.join(d, "abbrev_types.txt"), "w") as f:
            f.write("\n".join(sorted(p.abbrev_types)))
        with open(os.path.join(d, "collocations.tab"), "w") as f:
            f.write("\n".join(f"{a}\t{b}" for a, b in sorted(p.collocations)))
        with open(os.path.join(d, "sent_starters.txt"), "w") as f:
            f.write("\n".join(sorted(p.sent_starters)))
        with open(os.path.join(d, "ortho_context.tab"), "w") as f:
            f.write("\n".join(f"{k}\t{v}" for k, v in sorted(p.ortho_context.items())))
        return
    if mode == "fixture":
        texts, out = FIXTURE, sys.argv[3]
    elif mode == "random":
        rng = random.Random(int(sys.argv[4]))
        texts, out = [gen_text(rng) for _ in range(int(sys.argv[3]))], sys.argv[5]
    elif mode == "chars":
        rng = random.Random(int(sys.argv[4]))
        texts, out = [gen_chars(rng) for _ in range(int(sys.argv[3]))], sys.argv[5]
    elif mode == "files":
        texts, out = [p for f in sys.argv[4:] for p in paragraphs(f)], sys.argv[3]
    else:
        sys.exit(__doc__)
    rows = [{"text": t, "sentences": tok.tokenize(t)} for t in texts]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(rows, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print(f"punkt_check: {len(rows)} texts, {sum(len(r['sentences']) for r in rows)} sentences by NLTK {__import__('nltk').__version__}")


if __name__ == "__main__":
    main()
