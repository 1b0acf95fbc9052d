package accuracy

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// line is a score of one line.
type line string

func (l line) Text() string                            { return string(l) }
func (l line) Value(benchmarks.Metric) (float64, bool) { return 0, false }

// reported is a score whose script prints a report ending in its line.
type reported struct{ line }

func (r reported) Report() string { return "breakdown\n\n" + string(r.line) + "\n" }

// TestOutput: what a script prints of a score is its Report where it has
// one, else its line.
func TestOutput(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "'exact_match': 50.000\n", Output(line("'exact_match': 50.000")))
	assert.Equal(t, "breakdown\n\n'exact_match': 50.000\n", Output(reported{line("'exact_match': 50.000")}))
}
