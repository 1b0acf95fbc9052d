package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/bench/wan"
	"github.com/mlperf-host/mlperf-host/internal/config"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// accuracyVideos writes the videos of a wan-2.2-t2v-a14b accuracy log
// (their frames, and the script encoding them as the reference does and
// copying the round's compliance videos) into dir, beside the log by
// default, and prints the command running the official evaluation on
// them: VBench's networks do not run here, so nothing is scored.
func (a *app) accuracyVideos(c *config.Config, sc accuracy.Scorer, log string, in accuracy.Inputs, dir string) error {
	if in.Truth == "" {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("%s scorer: no prompts file", sc.Name),
			"pass the data set (--dataset DATA) or its "+wan.PromptsFile+", with "+wan.LatentFile+" beside it, with --truth")
	}
	d, err := wan.OpenData(in.Truth)
	if err != nil {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("%s scorer: %w", sc.Name, err), "")
	}
	prompts := make([]string, d.Len())
	for i := range prompts {
		prompts[i] = d.Prompt(i)
	}
	var ids []int
	for _, s := range c.Benchmark.AccuracyExtraFiles[wan.VideosDir] {
		id, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("round %s: compliance video %q is not a sample index", c.Round.Name, s)
		}
		ids = append(ids, id)
	}
	if dir == "" {
		dir = filepath.Dir(log)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	f, err := os.Open(log)
	if err != nil {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("accuracy log: %w", err), "run with --mode accuracy first, or pass the log's path")
	}
	defer f.Close()
	w, err := wan.WriteVideos(dir, f, prompts, d.Video, ids)
	if err != nil {
		return exitcode.New(exitcode.Dataset, fmt.Errorf("%s scorer, accuracy log %s: %w", sc.Name, log, err), "")
	}
	fmt.Fprintf(a.stdout, "wrote the frames of %d videos of %s into %s and %s (%d of the round's %d compliance videos logged)\n",
		len(w.Indices), d.Video, filepath.Join(dir, wan.FramesDir), filepath.Join(dir, wan.EncodeScript), len(w.Compliance), len(ids))
	fmt.Fprintf(a.stdout, "the official evaluation (ffmpeg, then VBench's networks; INFERENCE_REPO is a checkout of mlcommons/inference with its VBench submodule):\n  %s\n",
		wan.Command(dir, filepath.Join(dir, "evaluation_results")))
	return exitcode.New(exitcode.Dataset, fmt.Errorf("%s scorer: %w: not scored", sc.Name, wan.ErrNetworks),
		"run the command above on a machine with VBench's networks")
}
