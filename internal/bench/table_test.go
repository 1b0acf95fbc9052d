package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// docText is s as prose: Markdown's backticks and bold marks dropped,
// runs of white space one space.
func docText(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("`", "", "**", "").Replace(s)), " ")
}

// TestRowsDocumented: each row's section of docs/benchmarks.md exists and
// says the row's response and package, the scorer table names its scorer
// and script, its package exists, and every round row it names is a
// LoadGen model of some round.
func TestRowsDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "benchmarks.md"))
	require.NoError(t, err)
	doc := string(b)
	sections := map[string]string{}
	for _, sec := range strings.Split(doc, "\n## ")[1:] {
		heading, body, _ := strings.Cut(sec, "\n")
		sections[heading] = body
	}
	models := map[string]bool{}
	for _, name := range benchmarks.RoundNames() {
		for _, b := range benchmarks.MustRound(name).All() {
			models[b.Name] = true
		}
	}
	for _, r := range Rows() {
		t.Run(r.Names[0], func(t *testing.T) {
			t.Parallel()
			sec, ok := sections[r.Doc]
			require.True(t, ok, "docs/benchmarks.md has no section %q", r.Doc)
			assert.Contains(t, docText(sec), "Response: "+docText(r.Response))
			st, err := os.Stat(r.Package)
			require.NoError(t, err, "the row's package")
			assert.True(t, st.IsDir())
			assert.Contains(t, doc, "| `internal/bench/"+r.Package+"` |", "the scorer table names the package")
			if r.Scorer != nil {
				assert.Contains(t, doc, "`"+r.Scorer.Name+"`", "the scorer table names the scorer")
				assert.Contains(t, doc, "`"+r.Scorer.Script+"`")
				assert.Contains(t, sec, "internal/bench/"+r.Package+"/", "the section names the scorer's files")
			}
			for _, n := range r.Names {
				assert.True(t, models[n], "%s is no round's LoadGen model", n)
			}
		})
	}
}

// TestRowsOwnTheirNames: a LoadGen model is one row's.
func TestRowsOwnTheirNames(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range Rows() {
		require.NotEmpty(t, r.Names)
		for _, n := range r.Names {
			assert.False(t, seen[n], "%s is in two rows", n)
			seen[n] = true
			got, ok := For(n)
			require.True(t, ok)
			assert.Equal(t, r.Names, got.Names)
		}
	}
	_, ok := For("e2e-rag-qna") // a round's benchmark without a row
	assert.False(t, ok)
}
