package tokenizer

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func findAllOf(t *testing.T, pattern, s string) [][2]int {
	t.Helper()
	re, err := compileRegex(pattern)
	require.NoError(t, err, pattern)
	var out [][2]int
	var stack []thread
	re.findAll(s, &stack, func(start, end int) { out = append(out, [2]int{start, end}) })
	return out
}

// TestRegexAgainstGo: on patterns whose meaning Go's regexp shares
// (leftmost-first, no lookahead, ASCII classes), the matches agree.
func TestRegexAgainstGo(t *testing.T) {
	t.Parallel()
	inputs := []string{"", "a", "abc abc", "aaa bbb  ccc\n\nddd", "x1y22z333", "  leading and trailing  ", "a-b_c.d,e;f", "ab\nab\n"}
	for _, p := range []string{`a`, `[a-c]+`, `b|ab|abc`, `a*?b`, `[^ ]+`, ` ?[a-z]+`, `\d{1,2}`, `(?:ab)+|c`, `x|y|z`,
		`[a-c]{2,}`, `(?i:AB)`, `^ab`, `ab$`, `[.,;]`, `a{0,2}b?`, `[0-9]|[a-z]{3}`} {
		goRE := regexp.MustCompile(p)
		if strings.HasPrefix(p, "^") || strings.HasSuffix(p, "$") {
			goRE = regexp.MustCompile("(?m)" + p)
		}
		for _, s := range inputs {
			var want [][2]int
			for _, m := range goRE.FindAllStringIndex(s, -1) {
				want = append(want, [2]int{m[0], m[1]})
			}
			assert.Equal(t, want, findAllOf(t, p, s), "pattern %q on %q", p, s)
		}
	}
}

func TestRegexOniguruma(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, pattern, s string
		want             [][2]int
	}{
		{"lookahead leaves the last space", `\s+(?!\S)|\s+`, "a   b", [][2]int{{1, 3}, {3, 4}}},
		{"lookahead at the end", `\s+(?!\S)`, "a  ", [][2]int{{1, 3}}},
		{"positive lookahead", `a(?=b)`, "ab ac", [][2]int{{0, 1}}},
		{"\\s is Unicode White_Space, \\v included", `\s+`, "a\v\u0085\u3000b", [][2]int{{1, 7}}},
		{"\\p{L} with a newer letter", `\p{L}+`, "a\U00010D4Eb", [][2]int{{0, 6}}},
		{"case folding reaches long s", `(?i:'s)`, "'S 'ſ 's", [][2]int{{0, 2}, {3, 6}, {7, 9}}},
		{"atomic group does not give back", `(?>a+)a`, "aaa", nil},
		{"possessive", `a++b`, "aab", [][2]int{{0, 3}}},
		{"lazy", `<.+?>`, "<a><b>", [][2]int{{0, 3}, {3, 6}}},
		{"empty matches between characters", `x*`, "ab", [][2]int{{0, 0}, {1, 1}, {2, 2}}},
		{"empty match right after a match skipped", `a*`, "aab", [][2]int{{0, 2}, {3, 3}}},
		{"literal brace", `a{,`, "a{,", [][2]int{{0, 3}}},
		{"negated property in a class", `[\P{L}]+`, "ab12cd", [][2]int{{2, 4}}},
		{"nested class", `[a[0-9]]+`, "a1b", [][2]int{{0, 2}}},
		{"escapes", `\x41\u0042\x{43}\t`, "ABC\t", [][2]int{{0, 4}}},
	} {
		assert.Equal(t, c.want, findAllOf(t, c.pattern, c.s), c.name)
	}
}

func TestRegexErrors(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`(?<=a)b`, `(a`, `a)`, `[a`, `\p{Klingon}`, `(a*)*`, `*a`, `\k<x>`, `[[:alpha:]]`,
		`a{1000}{1000}`, `(?x)a`, `[b-a]`, `\`, "\xff"} {
		_, err := compileRegex(p)
		assert.Error(t, err, p)
	}
}

// TestRegexBounded: a pattern that backtracks exponentially in a plain
// backtracking engine stays fast.
func TestRegexBounded(t *testing.T) {
	t.Parallel()
	start := time.Now()
	got := findAllOf(t, `(?:a|a)+b`, strings.Repeat("a", 5000)+"c")
	assert.Empty(t, got)
	// Not a speed assertion: an exponential run would not end at all.
	t.Logf("%v", time.Since(start))
}
