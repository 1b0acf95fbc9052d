// Command tokenizercheck compares sdk/tokenizer with Hugging Face's
// tokenizers library: it writes the corpus (-gen), and compares our
// encodes and decodes of it with reference.js's output for each
// vocabulary (NAME=DIR pairs: DIR holds tokenizer.json, the reference's
// output is DIR/reference.jsonl), printing one table line per
// vocabulary. It exits 1 when any string differs.
//
// Usage:
//
//	tokenizercheck -gen CORPUS -root REPO [-n N] [-seed S] [-specials DIR,...]
//	tokenizercheck -corpus CORPUS NAME=DIR...
//	tokenizercheck -corpus CORPUS -bench PASSES NAME=DIR...
//	tokenizercheck -summarize BENCH_LINES
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

func main() {
	gen := flag.String("gen", "", "write the corpus to this file and exit")
	root := flag.String("root", ".", "repository root (its texts seed the corpus)")
	n := flag.Int("n", 100000, "corpus strings")
	seed := flag.Uint64("seed", 1, "corpus seed")
	specials := flag.String("specials", "", "comma-separated tokenizer directories whose special tokens the corpus embeds")
	corpusPath := flag.String("corpus", "", "the corpus to compare on")
	maxReport := flag.Int("show", 10, "mismatches shown per vocabulary")
	summary := flag.String("summarize", "", "print the median rates and ratios of a file of bench lines and exit")
	benchPasses := flag.Int("bench", 0, "time this many encode passes of the corpus per vocabulary instead of comparing")
	flag.Parse()
	if *summary != "" {
		f, err := os.Open(*summary)
		if err == nil {
			err = summarize(f)
			f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "tokenizercheck:", err)
			os.Exit(1)
		}
		return
	}
	if *gen != "" {
		if err := writeCorpus(*gen, *root, *n, *seed, splitList(*specials)); err != nil {
			fmt.Fprintln(os.Stderr, "tokenizercheck:", err)
			os.Exit(1)
		}
		return
	}
	if *corpusPath == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	corpus, err := readCorpus(*corpusPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tokenizercheck:", err)
		os.Exit(1)
	}
	var results []result
	for _, arg := range flag.Args() {
		name, dir, ok := strings.Cut(arg, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "tokenizercheck: %q: want NAME=DIR\n", arg)
			os.Exit(2)
		}
		tok, err := tokenizer.Open(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "tokenizercheck:", err)
			os.Exit(1)
		}
		if *benchPasses > 0 {
			bench(name, tok, corpus, *benchPasses)
			continue
		}
		f, err := os.Open(filepath.Join(dir, "reference.jsonl"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "tokenizercheck:", err)
			os.Exit(1)
		}
		r, err := compare(name, tok, corpus, f, *maxReport)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "tokenizercheck: %s: %v\n", name, err)
			os.Exit(1)
		}
		results = append(results, r)
	}
	if *benchPasses > 0 {
		return
	}
	fmt.Printf("\n%-12s %9s %11s %10s %10s %10s %10s\n", "vocabulary", "strings", "tokens", "encode", "no-special", "decode", "skip-spec")
	bad := 0
	for _, r := range results {
		fmt.Printf("%-12s %9d %11d %10d %10d %10d %10d\n", r.name, r.strings, r.tokens,
			r.encodeMiss, r.plainMis, r.decodeMiss, r.skipMiss)
		bad += r.mismatches()
	}
	fmt.Printf("mismatches: %d\n", bad)
	if bad > 0 {
		os.Exit(1)
	}
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
