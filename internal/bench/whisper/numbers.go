package whisper

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// The word tables of whisper's EnglishNumberNormalizer. Its quirks are
// kept: "nineth" (not "ninth") is the ordinal of nine.
var (
	numZeros = map[string]bool{"o": true, "oh": true, "zero": true}
	numOnes  = func() map[string]int64 {
		m := map[string]int64{}
		for i, w := range []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
			"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"} {
			m[w] = int64(i + 1)
		}
		return m
	}()
	numTens = map[string]int64{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
	numMultipliers = func() map[string]*big.Int {
		m := map[string]*big.Int{"hundred": big.NewInt(100)}
		for i, w := range []string{"thousand", "million", "billion", "trillion", "quadrillion", "quintillion",
			"sextillion", "septillion", "octillion", "nonillion", "decillion"} {
			m[w] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(3*(i+1))), nil)
		}
		return m
	}()
	// numOnesSuffixed, numTensSuffixed: plurals ("sixes", "twenties") and
	// ordinals ("third", "twentieth") with their suffix.
	numOnesSuffixed = func() map[string]suffixed {
		m := map[string]suffixed{"zeroth": {0, "th"}, "first": {1, "st"}, "second": {2, "nd"},
			"third": {3, "rd"}, "fifth": {5, "th"}, "twelfth": {12, "th"}}
		for w, v := range numOnes {
			if w == "six" {
				m["sixes"] = suffixed{v, "s"}
			} else {
				m[w+"s"] = suffixed{v, "s"}
			}
			if v > 3 && v != 5 && v != 12 {
				if strings.HasSuffix(w, "t") {
					m[w+"h"] = suffixed{v, "th"}
				} else {
					m[w+"th"] = suffixed{v, "th"}
				}
			}
		}
		return m
	}()
	numTensSuffixed = func() map[string]suffixed {
		m := map[string]suffixed{}
		for w, v := range numTens {
			m[strings.ReplaceAll(w, "y", "ies")] = suffixed{v, "s"}
			m[strings.ReplaceAll(w, "y", "ieth")] = suffixed{v, "th"}
		}
		return m
	}()
	numMultipliersSuffixed = func() map[string]string {
		m := map[string]string{}
		for w := range numMultipliers {
			m[w+"s"] = "s"
			m[w+"th"] = "th"
		}
		return m
	}()
	numPrecedingPrefixers = map[string]string{"minus": "-", "negative": "-", "plus": "+", "positive": "+"}
	numFollowingPrefixers = map[string]string{"pound": "£", "pounds": "£", "euro": "€", "euros": "€",
		"dollar": "$", "dollars": "$", "cent": "¢", "cents": "¢"}
	numPrefixes = "-+£€$¢"
	numSpecials = map[string]bool{"and": true, "double": true, "triple": true, "point": true}
	// numWords is every word the number normalizer acts on.
	numWords = func() map[string]bool {
		m := map[string]bool{"per": true, "percent": true}
		for w := range numZeros {
			m[w] = true
		}
		for _, t := range []map[string]int64{numOnes, numTens} {
			for w := range t {
				m[w] = true
			}
		}
		for _, t := range []map[string]suffixed{numOnesSuffixed, numTensSuffixed} {
			for w := range t {
				m[w] = true
			}
		}
		for w := range numMultipliers {
			m[w] = true
		}
		for _, t := range []map[string]string{numMultipliersSuffixed, numPrecedingPrefixers, numFollowingPrefixers} {
			for w := range t {
				m[w] = true
			}
		}
		for w := range numSpecials {
			m[w] = true
		}
		return m
	}()
)

type suffixed struct {
	value  int64
	suffix string
}

func isDecimalWord(w string) bool {
	_, one := numOnes[w]
	_, ten := numTens[w]
	return one || ten || numZeros[w]
}

var (
	reArabic       = regexp.MustCompile(`^\d+(\.\d+)?$`)
	reAndAHalf     = regexp.MustCompile(`\band\s+a\s+half\b`)
	reLetterDigit  = regexp.MustCompile(`([a-z])([0-9])`)
	reDigitLetter  = regexp.MustCompile(`([0-9])([a-z])`)
	reNumberSuffix = regexp.MustCompile(`([0-9])\s+(st|nd|rd|th|s)\b`)
	reCents        = regexp.MustCompile(`([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b`)
	reCurrencyZero = regexp.MustCompile(`[€£$]0.([0-9]{1,2})\b`)
	reOne          = regexp.MustCompile(`\b1(s?)\b`)
)

// normalizeNumbers is whisper's EnglishNumberNormalizer()(s): spelled-out
// numbers become digits, keeping suffixes (1960s, 21st), currency words
// become symbols before the number and "percent" a % after it.
func normalizeNumbers(s string) string {
	var results []string
	segments := reAndAHalf.Split(s, -1)
	for i, seg := range segments {
		if strings.TrimSpace(seg) == "" {
			continue
		}
		results = append(results, seg)
		if i == len(segments)-1 {
			continue
		}
		words := py.Fields(seg)
		last := words[len(words)-1]
		if _, mul := numMultipliers[last]; isDecimalWord(last) || mul {
			results = append(results, "point five")
		} else {
			results = append(results, "and a half")
		}
	}
	s = strings.Join(results, " ")
	s = reLetterDigit.ReplaceAllString(s, "${1} ${2}")
	s = reDigitLetter.ReplaceAllString(s, "${1} ${2}")
	s = reNumberSuffix.ReplaceAllString(s, "${1}${2}")

	s = strings.Join(numberWords(py.Fields(s)), " ")

	s = replaceSubmatches(reCents, s, func(g []string) string {
		cents, _ := strconv.Atoi(g[3])
		return fmt.Sprintf("%s%s.%02d", g[1], g[2], cents)
	})
	s = replaceSubmatches(reCurrencyZero, s, func(g []string) string {
		cents, _ := strconv.Atoi(g[1])
		return "¢" + strconv.Itoa(cents)
	})
	return reOne.ReplaceAllString(s, "one${1}")
}

// replaceSubmatches is re.ReplaceAllStringFunc with the submatches.
func replaceSubmatches(re *regexp.Regexp, s string, fn func(groups []string) string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		groups := make([]string, len(m)/2)
		for i := range groups {
			if m[2*i] >= 0 {
				groups[i] = s[m[2*i]:m[2*i+1]]
			}
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(fn(groups))
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// numValue is the number being read: none, an integer (Python's int,
// unbounded) or a string of digits (and a decimal point), as whisper
// keeps it.
type numValue struct {
	set   bool
	isStr bool
	s     string
	n     *big.Int
}

func intValue(n *big.Int) numValue     { return numValue{set: true, n: n} }
func strValue(s string) numValue       { return numValue{set: true, isStr: true, s: s} }
func int64Value(n int64) numValue      { return intValue(big.NewInt(n)) }
func (v numValue) isZeroInt() bool     { return v.set && !v.isStr && v.n.Sign() == 0 }
func (v numValue) modIs0(m int64) bool { return new(big.Int).Mod(v.n, big.NewInt(m)).Sign() == 0 }

func (v numValue) String() string {
	if v.isStr {
		return v.s
	}
	return v.n.String()
}

// orEmpty is Python's str(value or ""): "" for none, 0 and "".
func (v numValue) orEmpty() string {
	if !v.set || v.isZeroInt() {
		return ""
	}
	return v.String()
}

// plus returns the integer v+k.
func (v numValue) plus(k int64) *big.Int { return new(big.Int).Add(v.n, big.NewInt(k)) }

// withOnes is the number read so far followed by the ones word n
// (1..19): added where its last digit (two for 11..19) is free, else
// written after it, a preceding tens word's zero giving way.
func (v numValue) withOnes(n int64, prevIsOne, prevIsTen bool) numValue {
	d := strconv.FormatInt(n, 10)
	switch {
	case !v.set:
		return int64Value(n)
	case v.isStr || prevIsOne:
		if prevIsTen && n < 10 { // the tens' zero becomes the digit
			return strValue(v.s[:len(v.s)-1] + d)
		}
		return strValue(v.String() + d)
	case n < 10 && v.modIs0(10), n >= 10 && v.modIs0(100):
		return intValue(v.plus(n))
	}
	return strValue(v.String() + d)
}

// withTens is the number read so far followed by the tens word n.
func (v numValue) withTens(n int64) numValue {
	switch {
	case !v.set:
		return int64Value(n)
	case !v.isStr && v.modIs0(100):
		return intValue(v.plus(n))
	}
	return strValue(v.String() + strconv.FormatInt(n, 10))
}

// scaled is whisper's value // 1000 * 1000 + value % 1000 * multiplier.
func (v numValue) scaled(mul *big.Int) *big.Int {
	thousand := big.NewInt(1000)
	q, r := new(big.Int).QuoRem(v.n, thousand, new(big.Int))
	q.Mul(q, thousand)
	return q.Add(q, r.Mul(r, mul))
}

// fraction is Python's Fraction(value), nil where it raises ValueError:
// value's digits with at most one decimal point, at least one digit.
func (v numValue) fraction() *big.Rat {
	if !v.isStr {
		return new(big.Rat).SetInt(v.n)
	}
	whole, frac, dot := strings.Cut(v.s, ".")
	if whole+frac == "" || strings.Contains(frac, ".") && dot {
		return nil
	}
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return nil
		}
	}
	num, _ := new(big.Int).SetString(whole+frac, 10)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	return new(big.Rat).SetFrac(num, den)
}

// numberWords is EnglishNumberNormalizer.process_words: it reads words
// left to right with the previous and next word in view and returns the
// words with the numbers among them written in digits.
func numberWords(words []string) []string {
	var (
		out    []string
		prefix string // "" for none
		value  numValue
		skip   bool
	)
	emit := func(r string) {
		out = append(out, prefix+r)
		value, prefix = numValue{}, ""
	}
	emitValue := func() {
		if value.set {
			emit(value.String())
		}
	}
	for i, current := range words {
		if skip {
			skip = false
			continue
		}
		var prev, next string
		if i > 0 {
			prev = words[i-1]
		}
		if i+1 < len(words) {
			next = words[i+1]
		}
		nextIsNumeric := reArabic.MatchString(next)
		first, size := utf8.DecodeRuneInString(current)
		hasPrefix := strings.ContainsRune(numPrefixes, first)
		withoutPrefix := current
		if hasPrefix {
			withoutPrefix = current[size:]
		}
		_, prevIsOne := numOnes[prev]
		_, prevIsTen := numTens[prev]
		ones, isOne := numOnes[current]
		onesSuf, isOneSuf := numOnesSuffixed[current]
		tens, isTen := numTens[current]
		tensSuf, isTenSuf := numTensSuffixed[current]
		mul, isMul := numMultipliers[current]
		mulSuf, isMulSuf := numMultipliersSuffixed[current]

		switch {
		case reArabic.MatchString(withoutPrefix):
			f := strValue(withoutPrefix).fraction()
			if value.set {
				if value.isStr && strings.HasSuffix(value.s, ".") {
					value = strValue(value.s + current) // decimals, IP address parts
					continue
				}
				emitValue()
			}
			if hasPrefix {
				prefix = string(first)
			}
			if f.IsInt() {
				value = intValue(new(big.Int).Set(f.Num()))
			} else {
				value = strValue(withoutPrefix)
			}
		case !numWords[current]:
			emitValue()
			emit(current)
		case numZeros[current]:
			value = strValue(value.orEmpty() + "0")
		case isOne || isOneSuf:
			n, suf := ones, ""
			if isOneSuf {
				n, suf = onesSuf.value, onesSuf.suffix
			}
			v := value.withOnes(n, prevIsOne, prevIsTen)
			if isOne {
				value = v
			} else {
				emit(v.String() + suf)
			}
		case isTen || isTenSuf:
			n, suf := tens, ""
			if isTenSuf {
				n, suf = tensSuf.value, tensSuf.suffix
			}
			v := value.withTens(n)
			if isTen {
				value = v
			} else {
				emit(v.String() + suf)
			}
		case isMul:
			switch {
			case !value.set:
				value = intValue(new(big.Int).Set(mul))
			case value.isStr || value.isZeroInt():
				if f := value.fraction(); f != nil && f.Mul(f, new(big.Rat).SetInt(mul)).IsInt() {
					value = intValue(new(big.Int).Set(f.Num()))
				} else {
					emitValue()
					value = intValue(new(big.Int).Set(mul))
				}
			default:
				value = intValue(value.scaled(mul))
			}
		case isMulSuf:
			base := numMultipliers[strings.TrimSuffix(current, mulSuf)]
			switch {
			case !value.set:
				emit(base.String() + mulSuf)
			case value.isStr:
				if f := value.fraction(); f != nil && f.Mul(f, new(big.Rat).SetInt(base)).IsInt() {
					emit(f.Num().String() + mulSuf)
				} else {
					emitValue()
					emit(base.String() + mulSuf)
				}
			default:
				emit(value.scaled(base).String() + mulSuf)
			}
			value = numValue{}
		case numPrecedingPrefixers[current] != "":
			emitValue()
			if numWords[next] || nextIsNumeric {
				prefix = numPrecedingPrefixers[current]
			} else {
				emit(current)
			}
		case numFollowingPrefixers[current] != "":
			if value.set {
				prefix = numFollowingPrefixers[current]
				emitValue()
			} else {
				emit(current)
			}
		case current == "per" || current == "percent":
			switch {
			case !value.set:
				emit(current)
			case current == "percent":
				emit(value.String() + "%")
			case next == "cent":
				emit(value.String() + "%")
				skip = true
			default:
				emitValue()
				emit(current)
			}
		default: // the specials: and, double, triple, point
			_, nextIsOne := numOnes[next]
			switch {
			case !numWords[next] && !nextIsNumeric:
				emitValue()
				emit(current)
			case current == "and":
				if _, afterMul := numMultipliers[prev]; !afterMul { // "hundred and five" reads as 105
					emitValue()
					emit(current)
				}
			case current == "double" || current == "triple":
				if nextIsOne || numZeros[next] {
					repeats := 2
					if current == "triple" {
						repeats = 3
					}
					value = strValue(value.orEmpty() + strings.Repeat(strconv.FormatInt(numOnes[next], 10), repeats))
					skip = true
				} else {
					emitValue()
					emit(current)
				}
			default: // point
				if isDecimalWord(next) || nextIsNumeric {
					value = strValue(value.orEmpty() + ".")
				}
			}
		}
	}
	emitValue()
	return out
}
