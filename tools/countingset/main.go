// Command countingset writes a llama3.1-8b data set in the reference form
// (cnn_eval.json, tokenizer.json) for the tests' decoder-signature model,
// which counts up from each prompt's last token: each reference is what
// that model generates (package internal/bench/llm, CountingSet). Its
// defaults are the round's sample count, 13368 prompts, and references
// of 611 characters, the reference implementation's generated length per
// sample (8167644 characters over the data set).
//
// Usage:
//
//	countingset -dir DIR [-prompts N] [-vocab V] [-generated G] [-word-len L]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mlperf-host/mlperf-host/internal/bench/llm"
)

func main() {
	dir := flag.String("dir", "", "directory to write cnn_eval.json and tokenizer.json into (created if missing)")
	var s llm.CountingSet
	flag.IntVar(&s.Prompts, "prompts", 13368, "number of prompts")
	flag.IntVar(&s.Vocab, "vocab", 64, "the model's vocabulary size")
	flag.IntVar(&s.Generated, "generated", 6, "tokens generated per prompt (the plugin's max_new_tokens)")
	flag.IntVar(&s.WordLen, "word-len", 101, "characters of each token's word")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: countingset -dir DIR [-prompts N] [-vocab V] [-generated G] [-word-len L]")
		os.Exit(2)
	}
	if err := s.Write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
