package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// bench times our encodes of the corpus as bench.js times the
// reference's: one untimed pass, then passes timed, without special
// tokens, one goroutine. It prints "ours NAME ns=N tokens=T passes=P".
func bench(name string, tok *tokenizer.Tokenizer, corpus []string, passes int) {
	var dst []int32
	pass := func() int {
		tokens := 0
		for _, s := range corpus {
			dst = tok.AppendEncode(dst[:0], s, tokenizer.AddSpecialTokens(false))
			tokens += len(dst)
		}
		return tokens
	}
	pass()
	tokens := 0
	t0 := time.Now()
	for range passes {
		tokens += pass()
	}
	fmt.Printf("ours %s ns=%d tokens=%d passes=%d\n", name, time.Since(t0).Nanoseconds(), tokens, passes)
}

// summarize reads bench lines ("ours|reference NAME ns=N tokens=T
// passes=P", rounds interleaved) and prints per vocabulary the median
// tokens/s of each side and their ratio.
func summarize(r io.Reader) error {
	rates := map[string]map[string][]float64{} // name → side → tokens/s per round
	var names []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var side, name string
		var ns, tokens, passes int64
		if _, err := fmt.Sscanf(sc.Text(), "%s %s ns=%d tokens=%d passes=%d", &side, &name, &ns, &tokens, &passes); err != nil {
			continue
		}
		if ns <= 0 {
			return fmt.Errorf("%q: no time", sc.Text())
		}
		if rates[name] == nil {
			rates[name] = map[string][]float64{}
			names = append(names, name)
		}
		rates[name][side] = append(rates[name][side], float64(tokens)/(float64(ns)/1e9))
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Printf("%-12s %7s %16s %16s %8s\n", "vocabulary", "rounds", "ours tokens/s", "reference", "ratio")
	for _, name := range names {
		ours, ref := rates[name]["ours"], rates[name]["reference"]
		if len(ours) == 0 || len(ref) == 0 {
			return fmt.Errorf("%s: want lines of both sides", name)
		}
		mo, mr := median(ours), median(ref)
		fmt.Printf("%-12s %7d %16.0f %16.0f %7.2fx\n", name, min(len(ours), len(ref)), mo, mr, mo/mr)
	}
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
