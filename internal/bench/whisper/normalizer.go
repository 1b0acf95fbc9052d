package whisper

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// EnglishNormalizer is openai-whisper's EnglishTextNormalizer, which the
// Whisper benchmark's accuracy_eval.py applies to both the transcript and
// the reference before counting word errors: lower case, bracketed and
// parenthesized words and fillers removed, contractions and titles
// spelled out, symbols and diacritics removed, spelled-out numbers turned
// into digits (EnglishNumberNormalizer, whisper_numbers.go), British
// spellings made American by a table.
//
// Its regular expressions are Go's, whose \b, \d and \s are ASCII where
// Python's are Unicode: on ASCII text (all the Whisper scorer ever hands
// it, the 42-character alphabet of the responses) both agree; text with
// non-ASCII letters or digits may normalize differently.
type EnglishNormalizer struct {
	// spellings maps a British spelling to the American one: whisper's
	// normalizers/english.json.
	spellings map[string]string
}

// NewEnglishNormalizer returns the normalizer with the spelling table
// spellings (British to American, as whisper's english.json holds it).
func NewEnglishNormalizer(spellings map[string]string) *EnglishNormalizer {
	return &EnglishNormalizer{spellings: spellings}
}

// ReadSpellings reads a spelling table: a JSON object of British to
// American spellings, whisper's normalizers/english.json.
func ReadSpellings(path string) (map[string]string, error) {
	if path == "" {
		return nil, fmt.Errorf("whisper normalizer: no spelling table given: name openai-whisper's normalizers/english.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("whisper normalizer: spelling table (openai-whisper's normalizers/english.json): %w", err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("whisper normalizer: spelling table %s: want a JSON object of words to words: %w", path, err)
	}
	return m, nil
}

var (
	reBracketed   = regexp.MustCompile(`[<\[][^>\]]*[>\]]`)
	reParenthesis = regexp.MustCompile(`\(([^)]+?)\)`)
	reFillers     = regexp.MustCompile(`\b(hmm|mm|mhm|mmm|uh|um)\b`)
	reSpaceQuote  = regexp.MustCompile(`\s+'`)
	reDigitComma  = regexp.MustCompile(`(\d),(\d)`)
	rePeriod      = regexp.MustCompile(`\.([^0-9]|$)`)
	reLoneSymbol  = regexp.MustCompile(`[.$¢€£]([^0-9])`)
	reLonePercent = regexp.MustCompile(`([^0-9])%`)
	reSpaces      = regexp.MustCompile(`\s+`)
)

// englishReplacers are the contractions and abbreviations whisper spells
// out, applied in this order.
var englishReplacers = func() []struct {
	re   *regexp.Regexp
	with string
} {
	pairs := []string{
		// common contractions
		`\bwon't\b`, "will not", `\bcan't\b`, "can not", `\blet's\b`, "let us", `\bain't\b`, "aint",
		`\by'all\b`, "you all", `\bwanna\b`, "want to", `\bgotta\b`, "got to", `\bgonna\b`, "going to",
		`\bi'ma\b`, "i am going to", `\bimma\b`, "i am going to", `\bwoulda\b`, "would have",
		`\bcoulda\b`, "could have", `\bshoulda\b`, "should have", `\bma'am\b`, "madam",
		// titles and prefixes
		`\bmr\b`, "mister ", `\bmrs\b`, "missus ", `\bst\b`, "saint ", `\bdr\b`, "doctor ",
		`\bprof\b`, "professor ", `\bcapt\b`, "captain ", `\bgov\b`, "governor ", `\bald\b`, "alderman ",
		`\bgen\b`, "general ", `\bsen\b`, "senator ", `\brep\b`, "representative ", `\bpres\b`, "president ",
		`\brev\b`, "reverend ", `\bhon\b`, "honorable ", `\basst\b`, "assistant ", `\bassoc\b`, "associate ",
		`\blt\b`, "lieutenant ", `\bcol\b`, "colonel ", `\bjr\b`, "junior ", `\bsr\b`, "senior ",
		`\besq\b`, "esquire ",
		// perfect tenses
		`'d been\b`, " had been", `'s been\b`, " has been", `'d gone\b`, " had gone", `'s gone\b`, " has gone",
		`'d done\b`, " had done", `'s got\b`, " has got",
		// general contractions
		`n't\b`, " not", `'re\b`, " are", `'s\b`, " is", `'d\b`, " would", `'ll\b`, " will",
		`'t\b`, " not", `'ve\b`, " have", `'m\b`, " am",
	}
	out := make([]struct {
		re   *regexp.Regexp
		with string
	}, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, struct {
			re   *regexp.Regexp
			with string
		}{regexp.MustCompile(pairs[i]), pairs[i+1]})
	}
	return out
}()

// Normalize returns s normalized as whisper's EnglishTextNormalizer()(s).
func (n *EnglishNormalizer) Normalize(s string) string {
	s = strings.ToLower(s)
	s = reBracketed.ReplaceAllLiteralString(s, "")
	s = reParenthesis.ReplaceAllLiteralString(s, "")
	s = reFillers.ReplaceAllLiteralString(s, "")
	s = reSpaceQuote.ReplaceAllLiteralString(s, "'")
	for _, r := range englishReplacers {
		s = r.re.ReplaceAllLiteralString(s, r.with)
	}
	s = reDigitComma.ReplaceAllString(s, "${1}${2}")
	s = rePeriod.ReplaceAllString(s, " ${1}")
	s = removeSymbolsAndDiacritics(s, ".%$¢€£")
	s = normalizeNumbers(s)
	s = n.spell(s)
	s = reLoneSymbol.ReplaceAllString(s, " ${1}")
	s = reLonePercent.ReplaceAllString(s, "${1} ")
	return reSpaces.ReplaceAllLiteralString(s, " ")
}

// spell replaces each word by its American spelling.
func (n *EnglishNormalizer) spell(s string) string {
	words := py.Fields(s)
	for i, w := range words {
		if a, ok := n.spellings[w]; ok {
			words[i] = a
		}
	}
	return strings.Join(words, " ")
}

// additionalDiacritics are the letters NFKD does not decompose that
// whisper still writes in ASCII.
var additionalDiacritics = map[rune]string{
	'œ': "oe", 'Œ': "OE", 'ø': "o", 'Ø': "O", 'æ': "ae", 'Æ': "AE", 'ß': "ss", 'ẞ': "SS",
	'đ': "d", 'Đ': "D", 'ð': "d", 'Ð': "D", 'þ': "th", 'Þ': "th", 'ł': "l", 'Ł': "L",
}

// removeSymbolsAndDiacritics decomposes s (NFKD), drops nonspacing marks,
// writes the letters of additionalDiacritics in ASCII and turns every
// other mark, symbol and punctuation character not in keep into a space.
func removeSymbolsAndDiacritics(s, keep string) string {
	var b strings.Builder
	for _, c := range norm.NFKD.String(s) {
		switch {
		case strings.ContainsRune(keep, c):
			b.WriteRune(c)
		case additionalDiacritics[c] != "":
			b.WriteString(additionalDiacritics[c])
		case unicode.Is(unicode.Mn, c):
		case unicode.IsMark(c) || unicode.IsSymbol(c) || unicode.IsPunct(c):
			b.WriteByte(' ')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
