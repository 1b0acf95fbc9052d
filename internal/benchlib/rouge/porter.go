package rouge

import "strings"

// porterStem is the Porter stemmer as NLTK's PorterStemmer runs it by
// default (mode NLTK_EXTENSIONS), which rouge_score stems with: Porter's
// published five steps plus NLTK's departures (irregular forms, words of
// two letters kept, "ies"/"ied" of four letters, "alli" first, "fulli"
// and "logi" in step 2, a two-letter cvc). word is lower case.
func porterStem(word string) string {
	if s, ok := porterIrregular[word]; ok {
		return s
	}
	if len(word) <= 2 {
		return word
	}
	w := []byte(word)
	for _, step := range []func([]byte) []byte{porterStep1a, porterStep1b, porterStep1c, porterStep2, porterStep3, porterStep4, porterStep5a, porterStep5b} {
		w = step(w)
	}
	return string(w)
}

// porterIrregular is NLTK's pool of irregular forms.
var porterIrregular = func() map[string]string {
	m := map[string]string{}
	for stem, forms := range map[string][]string{
		"sky": {"sky", "skies"}, "die": {"dying"}, "lie": {"lying"}, "tie": {"tying"}, "news": {"news"},
		"inning": {"innings", "inning"}, "outing": {"outings", "outing"}, "canning": {"cannings", "canning"},
		"howe": {"howe"}, "proceed": {"proceed"}, "exceed": {"exceed"}, "succeed": {"succeed"},
	} {
		for _, f := range forms {
			m[f] = stem
		}
	}
	return m
}()

func porterConsonant(w []byte, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !porterConsonant(w, i-1)
	}
	return true
}

// porterMeasure is m, the number of vowel-consonant sequences.
func porterMeasure(w []byte) int {
	m := 0
	for i := 1; i < len(w); i++ {
		if porterConsonant(w, i) && !porterConsonant(w, i-1) {
			m++
		}
	}
	return m
}

func porterHasVowel(w []byte) bool {
	for i := range w {
		if !porterConsonant(w, i) {
			return true
		}
	}
	return false
}

func porterDoubleConsonant(w []byte) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && porterConsonant(w, n-1)
}

// porterCVC: consonant, vowel, consonant other than w, x, y; or, NLTK's
// extension, a vowel then a consonant as the whole word.
func porterCVC(w []byte) bool {
	n := len(w)
	if n >= 3 && porterConsonant(w, n-3) && !porterConsonant(w, n-2) && porterConsonant(w, n-1) &&
		w[n-1] != 'w' && w[n-1] != 'x' && w[n-1] != 'y' {
		return true
	}
	return n == 2 && !porterConsonant(w, 0) && porterConsonant(w, 1)
}

// porterRule is one rule of a step: a suffix ("*d": a double consonant),
// its replacement, and the condition on the stem (nil: none).
type porterRule struct {
	suffix, repl string
	cond         func(stem []byte) bool
}

// porterApply applies the first rule whose suffix the word has; a rule
// whose condition fails ends the step with the word unchanged.
func porterApply(w []byte, rules []porterRule) []byte {
	for _, r := range rules {
		if r.suffix == "*d" {
			if !porterDoubleConsonant(w) {
				continue
			}
			stem := w[:len(w)-2]
			if r.cond == nil || r.cond(stem) {
				return append(stem[:len(stem):len(stem)], r.repl...)
			}
			return w
		}
		if strings.HasSuffix(string(w), r.suffix) {
			stem := w[:len(w)-len(r.suffix)]
			if r.cond == nil || r.cond(stem) {
				return append(stem[:len(stem):len(stem)], r.repl...)
			}
			return w
		}
	}
	return w
}

func porterPositive(stem []byte) bool { return porterMeasure(stem) > 0 }

func porterReplace(w []byte, suffix, repl string) []byte {
	stem := w[:len(w)-len(suffix)]
	return append(stem[:len(stem):len(stem)], repl...)
}

func porterStep1a(w []byte) []byte {
	if len(w) == 4 && strings.HasSuffix(string(w), "ies") {
		return porterReplace(w, "ies", "ie")
	}
	return porterApply(w, []porterRule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
}

func porterStep1b(w []byte) []byte {
	s := string(w)
	if strings.HasSuffix(s, "ied") {
		if len(w) == 4 {
			return porterReplace(w, "ied", "ie")
		}
		return porterReplace(w, "ied", "i")
	}
	if strings.HasSuffix(s, "eed") {
		if stem := w[:len(w)-3]; porterMeasure(stem) > 0 {
			return porterReplace(w, "eed", "ee")
		}
		return w
	}
	var stem []byte
	found := false
	for _, suf := range []string{"ed", "ing"} {
		if strings.HasSuffix(s, suf) {
			if st := w[:len(w)-len(suf)]; porterHasVowel(st) {
				stem, found = st[:len(st):len(st)], true
				break
			}
		}
	}
	if !found {
		return w
	}
	last := stem[len(stem)-1]
	return porterApply(stem, []porterRule{
		{"at", "ate", nil}, {"bl", "ble", nil}, {"iz", "ize", nil},
		{"*d", string(last), func([]byte) bool { return last != 'l' && last != 's' && last != 'z' }},
		{"", "e", func(st []byte) bool { return porterMeasure(st) == 1 && porterCVC(st) }},
	})
}

func porterStep1c(w []byte) []byte {
	return porterApply(w, []porterRule{{"y", "i", func(st []byte) bool { return len(st) > 1 && porterConsonant(st, len(st)-1) }}})
}

func porterStep2(w []byte) []byte {
	if strings.HasSuffix(string(w), "alli") && porterPositive(w[:len(w)-4]) {
		return porterStep2(porterReplace(w, "alli", "al"))
	}
	p := porterPositive
	return porterApply(w, []porterRule{
		{"ational", "ate", p}, {"tional", "tion", p}, {"enci", "ence", p}, {"anci", "ance", p},
		{"izer", "ize", p}, {"bli", "ble", p}, {"alli", "al", p}, {"entli", "ent", p}, {"eli", "e", p},
		{"ousli", "ous", p}, {"ization", "ize", p}, {"ation", "ate", p}, {"ator", "ate", p},
		{"alism", "al", p}, {"iveness", "ive", p}, {"fulness", "ful", p}, {"ousness", "ous", p},
		{"aliti", "al", p}, {"iviti", "ive", p}, {"biliti", "ble", p}, {"fulli", "ful", p},
		// NLTK keeps the l of "logi" with the stem for the measure.
		{"logi", "log", func([]byte) bool { return porterPositive(w[:len(w)-3]) }},
	})
}

func porterStep3(w []byte) []byte {
	p := porterPositive
	return porterApply(w, []porterRule{
		{"icate", "ic", p}, {"ative", "", p}, {"alize", "al", p}, {"iciti", "ic", p},
		{"ical", "ic", p}, {"ful", "", p}, {"ness", "", p},
	})
}

func porterStep4(w []byte) []byte {
	g := func(st []byte) bool { return porterMeasure(st) > 1 }
	return porterApply(w, []porterRule{
		{"al", "", g}, {"ance", "", g}, {"ence", "", g}, {"er", "", g}, {"ic", "", g}, {"able", "", g},
		{"ible", "", g}, {"ant", "", g}, {"ement", "", g}, {"ment", "", g}, {"ent", "", g},
		{"ion", "", func(st []byte) bool {
			return porterMeasure(st) > 1 && len(st) > 0 && (st[len(st)-1] == 's' || st[len(st)-1] == 't')
		}},
		{"ou", "", g}, {"ism", "", g}, {"ate", "", g}, {"iti", "", g}, {"ous", "", g}, {"ive", "", g}, {"ize", "", g},
	})
}

func porterStep5a(w []byte) []byte {
	if len(w) > 0 && w[len(w)-1] == 'e' {
		stem := w[:len(w)-1]
		m := porterMeasure(stem)
		if m > 1 || m == 1 && !porterCVC(stem) {
			return stem
		}
	}
	return w
}

func porterStep5b(w []byte) []byte {
	return porterApply(w, []porterRule{{"ll", "l", func([]byte) bool { return porterMeasure(w[:len(w)-1]) > 1 }}})
}
