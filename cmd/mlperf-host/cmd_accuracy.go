package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/bench"
	"github.com/mlperf-host/mlperf-host/internal/bench/resnet"
	"github.com/mlperf-host/mlperf-host/internal/bench/sdxl"
	"github.com/mlperf-host/mlperf-host/internal/bench/wan"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/punkt"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
	"github.com/mlperf-host/mlperf-host/internal/runner"
)

func (a *app) cmdAccuracy(ctx context.Context, args []string) error {
	fs := a.newFlagSet("accuracy", "[flags] [LOG]",
		"Score an mlperf_log_accuracy.json (default OUT/mlperf_log_accuracy.json) as the benchmark's\n"+
			"official accuracy script does, print its result line and check the quality target. Top-1\n"+
			"reads the labels of the configured data set; the other scorers read --truth.")
	var cf configFlags
	cf.register(fs)
	write := fs.String("write", "", "also write the result line to `FILE` (accuracy.txt)")
	var in accuracy.Inputs
	scorer := fs.String("scorer", "", "`NAME` of the scorer, one of "+strings.Join(bench.ScorerNames(), ", ")+" (default: the benchmark's)")
	fs.StringVar(&in.Truth, "truth", "", "ground truth `PATH` the official script reads: openimages directory, SQuAD\ndev-v1.1.json, preprocessed KiTS19 directory, DLRM day-23 file (none when the log holds the labels),\nLLM prompts JSON with its output column or the reference's DataFrame pickle, Whisper's LibriSpeech manifest,\nthe IGBH directory (default: the configured data set's)")
	fs.StringVar(&in.Vocab, "vocab", "", "tokenizer `FILE`: BERT's vocab.txt, an LLM's tokenizer.json; whisper: openai-whisper's\nnormalizers/english.json (the normalizer's spelling table)")
	fs.StringVar(&in.Trace, "trace", "", "DLRM aggregation trace `FILE`, with --truth day_23")
	fs.BoolVar(&in.InvMap, "inv-map", false, "openimages: labels index the categories (accuracy-openimages.py --use-inv-map)")
	fs.BoolVar(&in.RemoveEmptyImages, "remove-48-empty-images", false, "coco: qsl_idx indexes the images that have annotations (accuracy-coco.py\n--remove-48-empty-images)")
	fs.StringVar(&in.Punkt, "punkt", "", "rouge, cnndm, mixtral, llama405b: NLTK's punkt_tab/english `DIR` to split sentences with (default: the\nembedded English parameters)")
	fs.StringVar(&in.Features, "features", "", "stable-diffusion-xl: `DIR` of the networks' outputs FID and CLIP are computed from\n(docs/benchmarks.md); without it, the command running the official script is printed")
	images := fs.String("images", "", "stable-diffusion-xl: write the compliance images and their captions.txt into `DIR`, as\naccuracy_coco.py's --compliance-images-path (default: images/ beside the log)")
	allImages := fs.Bool("all-images", false, "stable-diffusion-xl: write every logged image into the --images directory")
	videos := fs.String("videos", "", "wan-2.2-t2v-a14b: write the logged videos' frames and the script encoding them into `DIR`\n(default: beside the log)")
	fs.StringVar(&in.Problems, "problems", "", "deepseek-r1, gpt-oss-120b: LiveCodeBench's problems `FILES` the code answers are tested against,\nin the code sandbox, separated by commas: code_generation_lite's test.jsonl (deepseek-r1: release_v1),\ntest.jsonl,test2.jsonl,...,test6.jsonl (gpt-oss-120b: release_v6)")
	fs.IntVar(&in.Workers, "n-workers", 0, "mixtral: how many MBXP programs run at once in the code sandbox\n(evaluate-accuracy.py --n_workers; default 2)")
	fs.StringVar(&in.Dtype, "dtype", "", "response data `TYPE` where the official script takes one (default: the script's;\nrouge: test06.dtype, the plugins' int32; igbh: uint8, int32, int64 or float32)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	log := filepath.Join(c.Out, "mlperf_log_accuracy.json")
	switch len(pos) {
	case 0:
	case 1:
		log = pos[0]
	default:
		return exitcode.New(exitcode.Usage, fmt.Errorf("accuracy: want at most one LOG, got %d arguments", len(pos)), "")
	}
	sc, ok, err := bench.LookupScorer(*scorer, c.Benchmark.Name)
	if err != nil {
		return exitcode.New(exitcode.Usage, err, "")
	}
	if ok {
		sin, err := scorerInputs(c, sc, in)
		if err != nil {
			return err
		}
		sin.Context = ctx // an interrupt stops the programs a scorer runs
		if sc.Name == sdxl.Scorer.Name {
			return a.accuracySDXL(c, log, sin, *images, *allImages, *write)
		}
		if sc.Name == wan.Scorer.Name {
			return a.accuracyVideos(c, sc, log, sin, *videos)
		}
		return a.scoreWith(sc, c, log, sin, *write)
	}
	if in.Dtype != "" {
		// accuracy-imagenet.py's --dtype names the class's type.
		c.AccuracyOutput = "class-" + in.Dtype
		if _, err := resnet.ParseOutput(c.AccuracyOutput); err != nil {
			return exitcode.New(exitcode.Usage, fmt.Errorf("--dtype %q: want float32, int32 or int64", in.Dtype), "")
		}
	}
	res, err := runner.ScoreAccuracy(c, log)
	if err != nil {
		return err
	}
	if err := writeLine(*write, res.Text()); err != nil {
		return err
	}
	return a.printAccuracy(c.Benchmark.Quality.String(), res)
}

// scorerInputs fills what the flags leave unset from the accuracy.* keys
// and the configured data set (its ground truth), as a run does.
func scorerInputs(c *config.Config, sc accuracy.Scorer, flags accuracy.Inputs) (accuracy.Inputs, error) {
	for _, f := range []struct{ flag, key *string }{{&flags.Truth, &c.Scoring.Truth}, {&flags.Vocab, &c.Scoring.Vocab},
		{&flags.Trace, &c.Scoring.Trace}, {&flags.Dtype, &c.Scoring.DType}, {&flags.Punkt, &c.Scoring.Punkt}, {&flags.Features, &c.Scoring.Features},
		{&flags.Problems, &c.Scoring.Problems}} {
		if *f.flag != "" {
			*f.key = *f.flag
		}
	}
	var d dataset.Dataset
	if c.Dataset != "" && !strings.HasPrefix(c.Dataset, runner.BuiltinPrefix) {
		var err error
		if d, err = bench.Open(c.Dataset, dataset.Options{LabelMap: c.LabelMap, Features: c.DatasetFeatures()}); err != nil {
			return accuracy.Inputs{}, exitcode.New(exitcode.Dataset, fmt.Errorf("the data set the scorer reads its ground truth from: %w", err), "")
		}
		defer d.Close()
	}
	in, _, err := runner.ScorerInputs(c, d, sc)
	if err != nil {
		return in, exitcode.New(exitcode.Dataset, err, "")
	}
	in.InvMap, in.RemoveEmptyImages, in.Workers = flags.InvMap, flags.RemoveEmptyImages, flags.Workers
	return in, nil
}

// writeLine writes an accuracy.txt line to path, when path is set.
func writeLine(path, line string) error {
	if path == "" {
		return nil
	}
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// scoreWith scores log with sc, prints the official line and checks each
// quality target of the benchmark's scenario that sc measures.
func (a *app) scoreWith(sc accuracy.Scorer, c *config.Config, log string, in accuracy.Inputs, write string) error {
	f, err := os.Open(log)
	if err != nil {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("accuracy log: %w", err),
			"run with --mode accuracy first, or pass the log's path")
	}
	defer f.Close()
	res, err := sc.Score(f, in)
	if err != nil {
		hint := "pass the ground truth the official " + filepath.Base(sc.Script) + " reads with --truth"
		switch {
		case errors.Is(err, accuracy.ErrLog):
			hint = ""
		case errors.Is(err, punkt.ErrParams):
			hint = "--punkt (accuracy.punkt) names NLTK's punkt_tab/<language> directory; leave it out for the embedded English parameters"
		case in.Vocab == "" && slices.Contains(sc.Needs, accuracy.NeedVocab) && sc.VocabIs != "":
			hint = "pass " + sc.VocabIs + " with --vocab"
		}
		return exitcode.New(exitcode.Dataset, fmt.Errorf("%s scorer, accuracy log %s: %w", sc.Name, log, err), hint)
	}
	if err := writeLine(write, res.Text()); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, res.Text())
	var failed error
	measured := false
	for _, q := range c.Benchmark.TargetsFor(c.Scenario) {
		v, ok := res.Value(q.Metric)
		if !ok {
			continue
		}
		measured = true
		if v < q.Target() {
			fmt.Fprintf(a.stdout, "target %s: FAIL\n", q)
			if failed == nil {
				failed = exitcode.New(exitcode.AccuracyBelowTarget, fmt.Errorf("%s %g is below the target %.4f", q.Metric, v, q.Target()), "")
			}
			continue
		}
		fmt.Fprintf(a.stdout, "target %s: PASS\n", q)
	}
	if !measured {
		fmt.Fprintf(a.stdout, "(benchmark %s's target is %s, which the %s scorer does not measure)\n", c.Benchmark.Name, c.Benchmark.Quality.Metric, sc.Name)
	}
	if d, ok := res.(accuracy.Detailer); ok {
		fmt.Fprint(a.stdout, d.Details())
	}
	return failed
}

// printAccuracy prints a result and returns AccuracyBelowTarget when it
// fails.
func (a *app) printAccuracy(target string, res resnet.Result) error {
	verdict := "PASS"
	if !res.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(a.stdout, "%s\ntarget %s: %s\n", res.Text(), target, verdict)
	if res.Duplicates > 0 {
		fmt.Fprintf(a.stdout, "(%d duplicate entries not scored again)\n", res.Duplicates)
	}
	switch {
	case !res.Complete:
		return exitcode.New(exitcode.AccuracyBelowTarget,
			fmt.Errorf("accuracy log covers %d of the data set's %d samples", res.Total, res.DatasetSize),
			"score the log of an accuracy run (--mode accuracy) over the whole data set")
	case !res.Pass:
		return exitcode.New(exitcode.AccuracyBelowTarget,
			fmt.Errorf("accuracy %.3f%% is below the target %.4f%%", res.Accuracy, res.Target), "")
	}
	return nil
}

// accuracySDXL writes the compliance images of a stable-diffusion-xl log
// (and their captions.txt, from the captions file, the data set's or
// --truth) as accuracy_coco.py does, then scores the log from the
// networks' outputs (--features); without them it prints the command
// that runs the official script on the log and what was written.
func (a *app) accuracySDXL(c *config.Config, log string, in accuracy.Inputs, images string, all bool, write string) error {
	if images == "" {
		images = filepath.Join(filepath.Dir(log), sdxl.ImagesDir)
	}
	ids, ofRound, err := a.writeSDXLImages(c, in.Truth, log, images, all)
	if err != nil {
		return err
	}
	if in.Features != "" {
		return a.scoreWith(sdxl.Scorer, c, log, in, write)
	}
	abs := func(p string) string {
		if q, err := filepath.Abs(p); err == nil {
			return q
		}
		return p
	}
	idsFile := ""
	if ofRound {
		// The round's checker wants other images than the script's
		// default sample_ids.txt: the script takes them with --ids-path.
		idsFile = filepath.Join(filepath.Dir(abs(log)), "sample_ids.txt")
		if err := os.WriteFile(idsFile, []byte(sdxl.IDsText(ids)), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stdout, "the official scorer (Inception-v3 and CLIP; INFERENCE_REPO is a checkout of mlcommons/inference):\n  %s\n",
		sdxl.Command(abs(log), abs(in.Truth), abs(images), idsFile, filepath.Join(filepath.Dir(abs(log)), "coco-results.json")))
	return exitcode.New(exitcode.Dataset, fmt.Errorf("sdxl scorer: %w: not scored", sdxl.ErrNetworks),
		"run the command above, or pass the networks' outputs with --features DIR (docs/benchmarks.md)")
}

// writeSDXLImages writes the compliance images of the round (its
// checker's, else the script's default ids; those within the captions)
// of the accuracy log into dir, with their captions.txt from the
// captions file; all writes every logged image. It returns the round's
// ids and whether they are the round's own.
func (a *app) writeSDXLImages(c *config.Config, captions, log, dir string, all bool) ([]int, bool, error) {
	if captions == "" {
		return nil, false, exitcode.New(exitcode.Dataset, errors.New("sdxl scorer: no captions file"),
			"pass the data set (--dataset) or its captions/captions.tsv with --truth")
	}
	caps, err := sdxl.ReadCaptions(captions)
	if err != nil {
		return nil, false, exitcode.New(exitcode.Dataset, fmt.Errorf("sdxl scorer: captions: %w", err), "")
	}
	f, err := os.Open(log)
	if err != nil {
		return nil, false, exitcode.New(exitcode.Dataset, fmt.Errorf("accuracy log: %w", err), "run with --mode accuracy first, or pass the log's path")
	}
	defer f.Close()
	roundIDs, ofRound, err := sdxl.ComplianceIDsOf(c.Benchmark)
	if err != nil {
		return nil, false, exitcode.New(exitcode.Config, err, "")
	}
	ids := sdxl.Below(roundIDs, len(caps))
	if len(ids) < len(roundIDs) {
		fmt.Fprintf(a.stdout, "(%d of the %d compliance image ids are beyond the %d captions)\n", len(roundIDs)-len(ids), len(roundIDs), len(caps))
	}
	n, err := sdxl.WriteImages(dir, f, caps, ids, all, 0, 0)
	if err != nil {
		return nil, false, exitcode.New(exitcode.Dataset, fmt.Errorf("sdxl scorer, accuracy log %s: %w", log, err), "")
	}
	fmt.Fprintf(a.stdout, "wrote %d images and captions.txt into %s\n", n, dir)
	return roundIDs, ofRound, nil
}
