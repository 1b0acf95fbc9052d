package qwen3vl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

// TestScorerFixture: the fixture's log scores as evaluation.py scores it
// (run by tools/accuracyref/q3vl_evaluate.py on 4 workers with the
// default seed): accuracy.txt's line, and the results table's figures.
func TestScorerFixture(t *testing.T) {
	t.Parallel()
	log, err := os.Open(filepath.Join(fixtureDir, "mlperf_log_accuracy.json"))
	require.NoError(t, err)
	defer log.Close()
	s, err := Scorer.Score(log, accuracy.Inputs{Truth: fixtureDir})
	require.NoError(t, err)
	assert.Equal(t, `{"f1": 0.43298969072164945}`, s.Text())
	v, ok := s.Value(F1Hierarchical)
	assert.True(t, ok)
	assert.InDelta(t, 0.43298969072164945, v, 0)
	_, ok = s.Value("ROUGE1")
	assert.False(t, ok)
	r, ok := s.(*Results)
	require.True(t, ok)
	assert.Equal(t, "8 responses cannot be parsed against the expected schema\n"+
		"Results | Category hierarchical F1 Score | Brand F1 Score | Is_secondhand F1 Score\n"+
		"From accuracy file | 0.43299 | 0.3 | 0.470588\n"+
		"Random selection | 0.265306 | - (drawn in Python's set order) | 0.47619\n", r.Details())
	assert.Equal(t, 20, r.Responses)
}

func TestScoreLogErrors(t *testing.T) {
	t.Parallel()
	products := FixtureProducts(2, 1)
	for _, tc := range []struct {
		name, log, want string
	}{
		{name: "no responses", log: `[]`, want: "no responses"},
		{name: "index out of range", log: `[{"seq_id": 4, "qsl_idx": 2, "data": "7b7d"}]`, want: "entry seq_id 4: qsl_idx 2 is not one of the 2 products"},
		{name: "not utf-8", log: `[{"seq_id": 1, "qsl_idx": 0, "data": "ff"}]`, want: "entry seq_id 1 (qsl_idx 0): the reply is not UTF-8"},
		{name: "not hex", log: `[{"seq_id": 1, "qsl_idx": 0, "data": "zz"}]`, want: "entry 0 (qsl_idx 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ScoreLog(strings.NewReader(tc.log), products, Seed, Jobs)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := Scorer.Score(strings.NewReader(`[]`), accuracy.Inputs{Truth: t.TempDir()})
	require.ErrorContains(t, err, "qwen3-vl data set (--truth)")
}

// TestHierarchicalF1 works calculate_hierarchical_f1 by hand: the common
// prefix stops at the first differing level, levels are stripped.
func TestHierarchicalF1(t *testing.T) {
	t.Parallel()
	var h hierarchy
	h.add("A > B > C", "A > B > C")  // 3 of 3, 3
	h.add("A >  B > X > Y", "A > B") // 2 of 4, 2
	h.add("Z", "A > B")              // 0 of 1, 2
	assert.Equal(t, hierarchy{common: 5, predicted: 8, truth: 7}, h)
	hp, hr := 5.0/8, 5.0/7
	assert.InDelta(t, 2*(hp*hr)/(hp+hr), h.f1(), 0)
	assert.InDelta(t, 0.0, hierarchy{}.f1(), 0)
}

// TestSecondhandF1 works scikit-learn's f1_score of True by hand.
func TestSecondhandF1(t *testing.T) {
	t.Parallel()
	var c confusion
	for _, pt := range [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}, {true, true}} {
		c.add(pt[0], pt[1])
	}
	assert.Equal(t, confusion{tp: 2, fp: 1, fn: 1}, c)
	p, r := 2.0/3, 2.0/3
	assert.InDelta(t, 2*p*r/(p+r), c.f1(), 0)
	// No positive predicted or true: 0, as zero_division gives.
	assert.InDelta(t, 0.0, confusion{}.f1(), 0)
}

// TestPyLower: str.lower as Python 3.11 printed it, the final sigma and
// the dotted capital I included.
func TestPyLower(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ΑΘΗΝΑΣ": "αθηνας", "ΣΑΣ ΑΣ": "σας ας", "Σ": "σ", "AΣ.": "aς.", "ΑΣ\u0301Β": "ασ\u0301β",
		"ΑΣ\u0301": "ας\u0301", "İstanbul": "i\u0307stanbul", "ΑΣ'": "ας'", "Α'Σ": "α'ς", "Giorgio ARMANI": "giorgio armani",
	} {
		assert.Equal(t, want, pyLower(in), "%q", in)
	}
}

// TestBrandRatio: fuzz.ratio's values, worked by hand from the indel
// distance.
func TestBrandRatio(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, pred, truth string
		want              float64
	}{
		{name: "equal after strip and lower", pred: "  ADIDAS ", truth: "adidas", want: 100},
		{name: "one substitution", pred: "adodas", truth: "adidas", want: (1 - 2.0/12) * 100},
		{name: "one insertion", pred: "giorgio armanii", truth: "giorgio armani", want: (1 - 1.0/29) * 100},
		{name: "both empty", want: 100},
		{name: "one empty", pred: "x", want: 0},
		{name: "code points", pred: "zeiß", truth: "ZEISS", want: (1 - 3.0/9) * 100},
		// Python lower-cases İ to i and a combining dot: 2 code points.
		{name: "dotted capital i", pred: "İ", truth: "i", want: (1 - 1.0/3) * 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, BrandRatio(tt.pred, tt.truth), 1e-12)
		})
	}
}
