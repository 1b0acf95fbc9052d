"""EnglishTextNormalizer as openai-whisper's normalizers/english.py
defines it, reimplemented step by step from reading it (a second
implementation beside mlperf-host's Go one, not whisper's code). The
spelling table, whisper's normalizers/english.json, is read from the path
in $WHISPER_SPELLINGS."""
import json
import os
import re
import unicodedata
from fractions import Fraction

_EXTRA_LETTERS = dict(zip("œŒøØæÆßẞđĐðÐþÞłŁ",
                          ["oe", "OE", "o", "O", "ae", "AE", "ss", "SS", "d", "D", "d", "D", "th", "th", "l", "L"]))


def _strip_symbols(text, keep):
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        cat = unicodedata.category(ch)
        if ch in keep:
            out.append(ch)
        elif ch in _EXTRA_LETTERS:
            out.append(_EXTRA_LETTERS[ch])
        elif cat == "Mn":
            continue
        elif cat[0] in "MSP":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


_ONES = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
ONES = {w: i + 1 for i, w in enumerate(_ONES)}
ZEROS = {"o", "oh", "zero"}
ONES_SUF = {"zeroth": (0, "th"), "first": (1, "st"), "second": (2, "nd"), "third": (3, "rd"),
            "fifth": (5, "th"), "twelfth": (12, "th")}
for _w, _v in ONES.items():
    ONES_SUF["sixes" if _w == "six" else _w + "s"] = (_v, "s")
    if _v > 3 and _v not in (5, 12):
        ONES_SUF[_w + ("h" if _w[-1] == "t" else "th")] = (_v, "th")
TENS = {w: 10 * (i + 2) for i, w in enumerate(
    ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])}
TENS_SUF = {}
for _w, _v in TENS.items():
    TENS_SUF[_w.replace("y", "ies")] = (_v, "s")
    TENS_SUF[_w.replace("y", "ieth")] = (_v, "th")
MULS = {"hundred": 100}
for _i, _w in enumerate(["thousand", "million", "billion", "trillion", "quadrillion", "quintillion",
                         "sextillion", "septillion", "octillion", "nonillion", "decillion"]):
    MULS[_w] = 10 ** (3 * (_i + 1))
MULS_SUF = {}
for _w, _v in MULS.items():
    MULS_SUF[_w + "s"] = (_v, "s")
    MULS_SUF[_w + "th"] = (_v, "th")
BEFORE = {"minus": "-", "negative": "-", "plus": "+", "positive": "+"}
AFTER = {"pound": "£", "pounds": "£", "euro": "€", "euros": "€", "dollar": "$", "dollars": "$",
         "cent": "¢", "cents": "¢"}
SIGNS = set(BEFORE.values()) | set(AFTER.values())
SPECIAL = {"and", "double", "triple", "point"}
DECIMAL_WORDS = set(ONES) | set(TENS) | ZEROS
ALL = (ZEROS | set(ONES) | set(ONES_SUF) | set(TENS) | set(TENS_SUF) | set(MULS) | set(MULS_SUF)
       | set(BEFORE) | set(AFTER) | {"per", "percent"} | SPECIAL)
ARABIC = re.compile(r"^\d+(\.\d+)?$")


def _frac(x):
    try:
        return Fraction(x)
    except ValueError:
        return None


class _Reader:
    """The state of a left-to-right pass over the words."""

    def __init__(self):
        self.out, self.sign, self.val = [], None, None

    def put(self, word):
        word = str(word)
        self.out.append(word if self.sign is None else self.sign + word)
        self.sign, self.val = None, None

    def flush(self):
        if self.val is not None:
            self.put(self.val)



def _numbers(words):
    st = _Reader()
    skip = False
    padded = [None] + words + [None]
    for k in range(1, len(padded) - 1):
        prev, cur, nxt = padded[k - 1], padded[k], padded[k + 1]
        if skip:
            skip = False
            continue
        nxt_num = nxt is not None and ARABIC.match(nxt) is not None
        signed = cur[0] in SIGNS
        bare = cur[1:] if signed else cur
        if ARABIC.match(bare):
            f = _frac(bare)
            if st.val is not None:
                if isinstance(st.val, str) and st.val.endswith("."):
                    st.val = st.val + cur
                    continue
                st.flush()
            if signed:
                st.sign = cur[0]
            st.val = f.numerator if f.denominator == 1 else bare
        elif cur not in ALL:
            st.flush()
            st.put(cur)
        elif cur in ZEROS:
            st.val = str(st.val or "") + "0"
        elif cur in ONES or cur in ONES_SUF:
            n, suf = (ONES[cur], None) if cur in ONES else ONES_SUF[cur]
            v = st.val
            if v is None:
                res = n
            elif isinstance(v, str) or prev in ONES:
                res = v[:-1] + str(n) if prev in TENS and n < 10 else str(v) + str(n)
            elif (n < 10 and v % 10 == 0) or (n >= 10 and v % 100 == 0):
                res = v + n
            else:
                res = str(v) + str(n)
            if suf is None:
                st.val = res
            else:
                st.put(str(res) + suf)
        elif cur in TENS or cur in TENS_SUF:
            n, suf = (TENS[cur], None) if cur in TENS else TENS_SUF[cur]
            v = st.val
            if v is None:
                res = n
            elif not isinstance(v, str) and v % 100 == 0:
                res = v + n
            else:
                res = str(v) + str(n)
            if suf is None:
                st.val = res
            else:
                st.put(str(res) + suf)
        elif cur in MULS:
            m, v = MULS[cur], st.val
            if v is None:
                st.val = m
            elif isinstance(v, str) or v == 0:
                f = _frac(v)
                if f is not None and (f * m).denominator == 1:
                    st.val = (f * m).numerator
                else:
                    st.flush()
                    st.val = m
            else:
                st.val = v // 1000 * 1000 + v % 1000 * m
        elif cur in MULS_SUF:
            (m, suf), v = MULS_SUF[cur], st.val
            if v is None:
                st.put(str(m) + suf)
            elif isinstance(v, str):
                f = _frac(v)
                if f is not None and (f * m).denominator == 1:
                    st.put(str((f * m).numerator) + suf)
                else:
                    st.flush()
                    st.put(str(m) + suf)
            else:
                st.put(str(v // 1000 * 1000 + v % 1000 * m) + suf)
            st.val = None
        elif cur in BEFORE:
            st.flush()
            if nxt in ALL or nxt_num:
                st.sign = BEFORE[cur]
            else:
                st.put(cur)
        elif cur in AFTER:
            if st.val is not None:
                st.sign = AFTER[cur]
                st.flush()
            else:
                st.put(cur)
        elif cur in ("per", "percent"):
            if st.val is None:
                st.put(cur)
            elif cur == "percent" or nxt == "cent":
                st.put(str(st.val) + "%")
                skip = cur == "per"
            else:
                st.flush()
                st.put(cur)
        elif nxt not in ALL and not nxt_num:
            st.flush()
            st.put(cur)
        elif cur == "and":
            if prev not in MULS:
                st.flush()
                st.put(cur)
        elif cur in ("double", "triple"):
            if nxt in ONES or nxt in ZEROS:
                st.val = str(st.val or "") + str(ONES.get(nxt, 0)) * (2 if cur == "double" else 3)
                skip = True
            else:
                st.flush()
                st.put(cur)
        else:  # point
            if nxt in DECIMAL_WORDS or nxt_num:
                st.val = str(st.val or "") + "."
    st.flush()
    return st.out


def _cents(m):
    return "%s%s.%02d" % (m.group(1), m.group(2), int(m.group(3)))


def normalize_numbers(s):
    parts = re.split(r"\band\s+a\s+half\b", s)
    kept = []
    for i, part in enumerate(parts):
        if not part.strip():
            continue
        kept.append(part)
        if i < len(parts) - 1:
            last = part.split()[-1]
            kept.append("point five" if last in DECIMAL_WORDS or last in MULS else "and a half")
    s = " ".join(kept)
    s = re.sub(r"([a-z])([0-9])", r"\1 \2", s)
    s = re.sub(r"([0-9])([a-z])", r"\1 \2", s)
    s = re.sub(r"([0-9])\s+(st|nd|rd|th|s)\b", r"\1\2", s)
    s = " ".join(_numbers(s.split()))
    s = re.sub(r"([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b", _cents, s)
    s = re.sub(r"[€£$]0.([0-9]{1,2})\b", lambda m: "¢%d" % int(m.group(1)), s)
    return re.sub(r"\b1(s?)\b", r"one\1", s)


_SPELLED_OUT = [
    ("won't", "will not"), ("can't", "can not"), ("let's", "let us"), ("ain't", "aint"),
    ("y'all", "you all"), ("wanna", "want to"), ("gotta", "got to"), ("gonna", "going to"),
    ("i'ma", "i am going to"), ("imma", "i am going to"), ("woulda", "would have"),
    ("coulda", "could have"), ("shoulda", "should have"), ("ma'am", "madam"),
]
_TITLES = [("mr", "mister"), ("mrs", "missus"), ("st", "saint"), ("dr", "doctor"), ("prof", "professor"),
           ("capt", "captain"), ("gov", "governor"), ("ald", "alderman"), ("gen", "general"),
           ("sen", "senator"), ("rep", "representative"), ("pres", "president"), ("rev", "reverend"),
           ("hon", "honorable"), ("asst", "assistant"), ("assoc", "associate"), ("lt", "lieutenant"),
           ("col", "colonel"), ("jr", "junior"), ("sr", "senior"), ("esq", "esquire")]
_ENDINGS = [("'d been", " had been"), ("'s been", " has been"), ("'d gone", " had gone"),
            ("'s gone", " has gone"), ("'d done", " had done"), ("'s got", " has got"),
            ("n't", " not"), ("'re", " are"), ("'s", " is"), ("'d", " would"), ("'ll", " will"),
            ("'t", " not"), ("'ve", " have"), ("'m", " am")]
_RULES = ([(r"\b" + re.escape(a) + r"\b", b) for a, b in _SPELLED_OUT]
          + [(r"\b" + a + r"\b", b + " ") for a, b in _TITLES]
          + [(re.escape(a) + r"\b", b) for a, b in _ENDINGS])


class EnglishTextNormalizer:
    def __init__(self):
        with open(os.environ["WHISPER_SPELLINGS"]) as f:
            self.spellings = json.load(f)

    def __call__(self, s):
        s = s.lower()
        s = re.sub(r"[<\[][^>\]]*[>\]]", "", s)
        s = re.sub(r"\(([^)]+?)\)", "", s)
        s = re.sub(r"\b(hmm|mm|mhm|mmm|uh|um)\b", "", s)
        s = re.sub(r"\s+'", "'", s)
        for pat, rep in _RULES:
            s = re.sub(pat, rep, s)
        s = re.sub(r"(\d),(\d)", r"\1\2", s)
        s = re.sub(r"\.([^0-9]|$)", r" \1", s)
        s = _strip_symbols(s, ".%$¢€£")
        s = normalize_numbers(s)
        s = " ".join(self.spellings.get(w, w) for w in s.split())
        s = re.sub(r"[.$¢€£]([^0-9])", r" \1", s)
        s = re.sub(r"([^0-9])%", r"\1 ", s)
        return re.sub(r"\s+", " ", s)
