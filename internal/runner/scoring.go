package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// ScorerInputs returns what a benchmark's scorer reads besides the
// accuracy log: the accuracy.* keys, else the ground truth the data set's
// own files hold (dataset.Truth: the OpenImages annotations, the KiTS19
// segmentations, SQuAD's dev set, the prompts' reference outputs;
// dataset.Vocab: SQuAD's vocab.txt). missing names, as a hint, what the
// scorer needs and nobody gave; "" when nothing is missing. An LLM
// scorer's reference outputs are read from the ground truth, a prompts
// file (Scorer.Targets); err says why they could not be.
func ScorerInputs(c *config.Config, d dataset.Dataset, sc accuracy.Scorer) (in accuracy.Inputs, missing string, err error) {
	in = accuracy.Inputs{Truth: c.Scoring.Truth, Vocab: c.Scoring.Vocab, Trace: c.Scoring.Trace, Dtype: c.Scoring.DType, Punkt: c.Scoring.Punkt, Features: c.Scoring.Features,
		Problems: c.Scoring.Problems, Launcher: c.Scoring.Launcher}
	if in.Truth == "" && d != nil {
		in.Truth = dataset.Truth(d)
	}
	if in.Vocab == "" && d != nil {
		in.Vocab = dataset.Vocab(d)
	}
	switch {
	case sc.Networks != "":
		return in, fmt.Sprintf("the %s scorer's metric needs %s, which mlperf-host does not run: `mlperf-host accuracy` writes what the official %s reads and prints its command",
			sc.Name, sc.Networks, filepath.Base(sc.Script)), nil
	case slices.Contains(sc.Needs, accuracy.NeedTruth) && in.Truth == "":
		return in, fmt.Sprintf("the %s scorer needs the ground truth %s reads: --set %s=PATH", sc.Name, filepath.Base(sc.Script), config.KeyAccuracyTruth), nil
	case slices.Contains(sc.Needs, accuracy.NeedVocab) && in.Vocab == "":
		what := sc.VocabIs
		if what == "" {
			what = "the tokenizer's file"
		}
		return in, fmt.Sprintf("the %s scorer needs %s: --set %s=FILE", sc.Name, what, config.KeyAccuracyVocab), nil
	case slices.Contains(sc.Needs, accuracy.NeedFeatures) && in.Features == "":
		return in, fmt.Sprintf("the %s scorer computes its metrics from the networks' outputs: --set %s=DIR; or run the official %s (`mlperf-host accuracy` prints its command)",
			sc.Name, config.KeyAccuracyFeatures, filepath.Base(sc.Script)), nil
	}
	if sc.Targets != nil {
		if in.Targets, err = sc.Targets(in.Truth); err != nil {
			return in, "", fmt.Errorf("%s scorer: %w", sc.Name, err)
		}
	}
	if in.Dtype == "" && sc.Tokens {
		in.Dtype = c.TEST06DType // the plugin's token type
	}
	return in, "", nil
}

// scoreWithScorer scores the run's accuracy log with the benchmark's
// scorer, writes accuracy.txt and checks the scenario's quality targets;
// without the scorer's inputs it says why in Unscored and scores nothing.
func (o *Outcome) scoreWithScorer(c *config.Config, d dataset.Dataset, sc accuracy.Scorer) error {
	in, missing, err := ScorerInputs(c, d, sc)
	if err != nil {
		return exitcode.New(exitcode.Dataset, err, "")
	}
	if missing != "" {
		o.Unscored = missing
		return nil
	}
	log := filepath.Join(o.OutDir, "mlperf_log_accuracy.json")
	f, err := os.Open(log)
	if err != nil {
		return fmt.Errorf("accuracy log: %w", err)
	}
	defer f.Close()
	s, err := sc.Score(f, in)
	if err != nil {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("%s scorer, accuracy log %s: %w", sc.Name, log, err),
			"the accuracy.* keys name what the official "+filepath.Base(sc.Script)+" reads (docs/benchmarks.md)")
	}
	o.Score = s
	o.ScorePass = true
	for _, q := range c.Benchmark.TargetsFor(c.Scenario) {
		if v, ok := s.Value(q.Metric); ok && v < q.Target() {
			o.ScorePass = false
			o.ScoreFailed = append(o.ScoreFailed, q.String())
		}
	}
	return o.writeAccuracyText(s.Text())
}

// writeAccuracyText writes accuracy.txt next to the accuracy log.
func (o *Outcome) writeAccuracyText(line string) error {
	path := filepath.Join(o.OutDir, AccuracyTextFile)
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		_ = os.Remove(path) // never a torn result under its name
		return fmt.Errorf("write accuracy result (removed %s): %w", path, err)
	}
	o.Files = listFiles(o.OutDir)
	return nil
}
