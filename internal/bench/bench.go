package bench

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// Rows returns the registry's rows, in table order.
func Rows() []Row { return slices.Clone(table) }

// For returns the row serving LoadGen model name (a round row's
// Benchmark.Name), and false when no row does.
func For(name string) (Row, bool) {
	for _, r := range table {
		if slices.Contains(r.Names, name) {
			return r, true
		}
	}
	return Row{}, false
}

// Open opens a data set by path: in the first reference form a row's
// reader finds there (the readers marked Last after the others), else
// as package dataset opens it (a .npy directory with its val_map.txt,
// the stacked form, a directory per sample, a compact file), which also
// words the error for a path that does not exist.
func Open(path string, o dataset.Options) (dataset.Dataset, error) {
	if _, err := os.Stat(path); err == nil {
		for _, last := range []bool{false, true} {
			for _, row := range table {
				for _, r := range row.Readers {
					if r.Last == last && r.Is(path, o) {
						return r.Open(path, o)
					}
				}
			}
		}
	}
	return dataset.Open(path, o)
}

// Top1Scorer is the name of the top-1 scorer (`accuracy --scorer
// imagenet`), which the rows without a Scorer are scored with: the
// runner's, against the data set's labels (resnet.Top1).
const Top1Scorer = resnet.ScorerName

// ErrNoScorer is wrapped by LookupScorer's errors.
var ErrNoScorer = errors.New("no scorer")

// ScorerNames lists the names LookupScorer takes, "imagenet" (top-1)
// first, then the rows' scorers in table order.
func ScorerNames() []string {
	names := []string{Top1Scorer}
	for _, r := range table {
		if r.Scorer != nil && !slices.Contains(names, r.Scorer.Name) {
			names = append(names, r.Scorer.Name)
		}
	}
	return names
}

// LookupScorer returns the scorer called name, or the scorer of the row
// serving LoadGen model benchmark when name is empty. ok is false for
// top-1 ("imagenet", and the rows without a scorer: resnet50 and the
// demo), which the caller scores with the data set's labels.
func LookupScorer(name, benchmark string) (s accuracy.Scorer, ok bool, err error) {
	for _, r := range table {
		if r.Scorer != nil && (r.Scorer.Name == name || name == "" && slices.Contains(r.Names, benchmark)) {
			return *r.Scorer, true, nil
		}
	}
	if name == "" || name == Top1Scorer {
		return accuracy.Scorer{}, false, nil
	}
	return accuracy.Scorer{}, false, fmt.Errorf("%w %q: want one of %s", ErrNoScorer, name, strings.Join(ScorerNames(), ", "))
}
