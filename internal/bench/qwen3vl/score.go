package qwen3vl

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// F1Hierarchical is the quality metric, as the submission checker names
// it: the category hierarchical F1 of accuracy.txt's "f1".
const F1Hierarchical benchmarks.Metric = "F1_HIERARCHICAL"

// The evaluation's settings.
const (
	// Seed is the evaluate command's default --random-seed.
	Seed = 12345
	// Jobs is the number of chunks' workers the evaluation splits the
	// responses among: min(os.cpu_count(), 4), 4 on any machine of four
	// cores or more. The random draws depend on it.
	Jobs = 4
	// categorySeparator splits a category into its levels.
	categorySeparator = " > "
	// The replacements of an unparsable reply's fields.
	categoryPad = "<|__PRED_CATEGORY_PAD__|>"
	brandPad    = "<|__PRED_BRAND_PAD__|>"
	// brandThreshold is the fuzzy-match score a brand must pass.
	brandThreshold = 90
)

var _ accuracy.Detailer = (*Results)(nil)

// Scorer scores a qwen3-vl accuracy log as evaluation.py does; the
// ground truth is the data set (--truth: its directory or Parquet file).
var Scorer = accuracy.Scorer{
	Name:   "qwen3-vl",
	Script: "multimodal/qwen3-vl/src/mlperf_inf_mm_q3vl/evaluation.py",
	Needs:  []string{accuracy.NeedTruth},
	Score: func(log io.Reader, in accuracy.Inputs) (accuracy.Score, error) {
		c, err := ReadCatalogue(in.Truth)
		if err != nil {
			return nil, fmt.Errorf("qwen3-vl data set (--truth): %w", err)
		}
		return ScoreLog(log, c.Products, Seed, Jobs)
	},
}

// Results are what evaluation.py finds: the scores of the replies and of
// its random selections (the random brand's score is left out: it draws
// from a Python set of the brands, whose order is the interpreter's
// string hashing, which changes from run to run).
type Results struct {
	Category, Brand, Secondhand      float64
	RandomCategory, RandomSecondhand float64
	// Unparsable counts the replies ProductMetadata refused.
	Unparsable int
	Responses  int
}

// Text is accuracy.txt's line, which the submission checker reads:
// {"f1": 0.7903}.
func (r *Results) Text() string { return `{"f1": ` + py.Float(r.Category) + `}` }

// Value implements accuracy.Score: the category hierarchical F1.
func (r *Results) Value(m benchmarks.Metric) (float64, bool) {
	if m == F1Hierarchical {
		return r.Category, true
	}
	return 0, false
}

// Details are the evaluation's count of refused replies and its results
// table, a row a line, cells joined by " | ", each figure as tabulate
// formats it (six significant digits); the random brand's cell says it is
// not reproducible (implements accuracy.Detailer).
func (r *Results) Details() string {
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }
	return fmt.Sprintf("%d responses cannot be parsed against the expected schema\n"+
		"Results | Category hierarchical F1 Score | Brand F1 Score | Is_secondhand F1 Score\n"+
		"From accuracy file | %s | %s | %s\n"+
		"Random selection | %s | - (drawn in Python's set order) | %s\n",
		r.Unparsable, g(r.Category), g(r.Brand), g(r.Secondhand), g(r.RandomCategory), g(r.RandomSecondhand))
}

// reply is one logged response.
type reply struct {
	idx  int
	text []byte
}

// ScoreLog scores an accuracy log against the products: the replies in
// the log's order split into chunks as evaluation.py splits them among
// jobs workers, each chunk's draws from a generator seeded by the
// master generator of seed.
//
// # Errors
//
// Names the entry whose qsl_idx is not a product's or whose text is not
// UTF-8 (which stops the evaluation), and refuses a log without
// responses.
func ScoreLog(log io.Reader, products []Product, seed uint64, jobs int) (*Results, error) {
	var replies []reply
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(products)) {
			return fmt.Errorf("entry seq_id %d: qsl_idx %d is not one of the %d products", e.SeqID, e.QSLIdx, len(products))
		}
		if !utf8.Valid(e.Data) {
			return fmt.Errorf("entry seq_id %d (qsl_idx %d): the reply is not UTF-8", e.SeqID, e.QSLIdx)
		}
		replies = append(replies, reply{idx: int(e.QSLIdx), text: append([]byte(nil), e.Data...)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(replies) == 0 {
		return nil, fmt.Errorf("%w: no responses", accuracy.ErrLog)
	}
	return evaluate(replies, products, seed, jobs), nil
}

// tally sums the components of the scores.
type tally struct {
	category, randCategory hierarchy
	secondhand, randSecond confusion
	brandMatches           int
}

func evaluate(replies []reply, products []Product, seed uint64, jobs int) *Results {
	master := py.NewGenerator(seed)
	size := max(len(replies)/max(jobs, 1), 1)
	var chunks [][]reply
	for i := 0; i < len(replies); i += size {
		chunks = append(chunks, replies[i:min(i+size, len(replies))])
	}
	var t tally
	r := &Results{Responses: len(replies)}
	for k, s := range master.Seeds(len(chunks)) {
		rng := py.NewGenerator(s)
		for _, e := range chunks[k] {
			p := products[e.idx]
			m, err := ParseMetadata(e.text)
			if err != nil {
				r.Unparsable++
				levels := len(strings.Split(p.Category, categorySeparator))
				m = Metadata{Category: strings.Join(repeat(categoryPad, levels), categorySeparator), Brand: brandPad,
					Secondhand: rng.Index(2) == 0}
			}
			t.category.add(m.Category, p.Category)
			t.secondhand.add(m.Secondhand, p.Secondhand)
			if BrandRatio(m.Brand, p.Brand) > brandThreshold {
				t.brandMatches++
			}
			t.randCategory.add(p.Categories[rng.Index(len(p.Categories))], p.Category)
			t.randSecond.add(rng.Index(2) == 0, p.Secondhand)
		}
	}
	r.Category, r.RandomCategory = t.category.f1(), t.randCategory.f1()
	r.Secondhand, r.RandomSecondhand = t.secondhand.f1(), t.randSecond.f1()
	r.Brand = float64(t.brandMatches) / float64(len(replies))
	return r
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// hierarchy sums the hierarchical components over the samples: the
// levels of the longest common prefix, the predicted and the true levels.
type hierarchy struct{ common, predicted, truth int }

func (h *hierarchy) add(pred, truth string) {
	p, t := levels(pred), levels(truth)
	n := 0
	for n < min(len(p), len(t)) && p[n] == t[n] {
		n++
	}
	h.common += n
	h.predicted += len(p)
	h.truth += len(t)
}

func levels(path string) []string {
	out := strings.Split(path, categorySeparator)
	for i, c := range out {
		out[i] = strings.TrimFunc(c, py.IsSpace)
	}
	return out
}

// f1 is calculate_hierarchical_f1: hP and hR over the totals, 0 where a
// total is 0.
func (h hierarchy) f1() float64 {
	var hp, hr float64
	if h.predicted > 0 {
		hp = float64(h.common) / float64(h.predicted)
	}
	if h.truth > 0 {
		hr = float64(h.common) / float64(h.truth)
	}
	if hp+hr == 0 {
		return 0
	}
	return 2 * (hp * hr) / (hp + hr)
}

// confusion counts a binary classification's outcomes for the positive
// class (True).
type confusion struct{ tp, fp, fn int }

func (c *confusion) add(pred, truth bool) {
	switch {
	case pred && truth:
		c.tp++
	case pred:
		c.fp++
	case truth:
		c.fn++
	}
}

// f1 is scikit-learn's f1_score of the positive class, as its
// precision_recall_fscore_support computes it: precision and recall (0
// where undefined), then 2·p·r / (p + r), 0 where p + r is 0.
func (c confusion) f1() float64 {
	var p, r float64
	if c.tp+c.fp > 0 {
		p = float64(c.tp) / float64(c.tp+c.fp)
	}
	if c.tp+c.fn > 0 {
		r = float64(c.tp) / float64(c.tp+c.fn)
	}
	denom := p + r
	if denom == 0 {
		denom = 1
	}
	return 2 * p * r / denom
}
