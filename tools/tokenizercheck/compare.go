package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// refLine is one line of reference.js's output.
type refLine struct {
	S []int32 `json:"s"`
	N []int32 `json:"n"`
	D *string `json:"d"`
	K *string `json:"k"`
}

// result is one vocabulary's comparison.
type result struct {
	name                 string
	strings, tokens      int
	encodeMiss, plainMis int
	decodeMiss, skipMiss int
}

func (r result) mismatches() int { return r.encodeMiss + r.plainMis + r.decodeMiss + r.skipMiss }

// compare encodes and decodes every corpus string with tok and checks each
// against the reference's line.
func compare(name string, tok *tokenizer.Tokenizer, corpus []string, ref io.Reader, maxReport int) (result, error) {
	r := result{name: name}
	sc := bufio.NewScanner(ref)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	refs := make([]refLine, 0, len(corpus))
	for sc.Scan() {
		var l refLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return r, fmt.Errorf("reference line %d: %w", len(refs)+1, err)
		}
		refs = append(refs, l)
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	if len(refs) != len(corpus) {
		return r, fmt.Errorf("the reference has %d lines, the corpus %d strings", len(refs), len(corpus))
	}
	withSpecial := make([][]int32, len(corpus))
	without := make([][]int32, len(corpus))
	for i, s := range corpus {
		withSpecial[i] = tok.Encode(s)
		without[i] = tok.Encode(s, tokenizer.AddSpecialTokens(false))
	}
	shown := 0
	show := func(i int, what string, want, have any) {
		if shown >= maxReport {
			return
		}
		shown++
		fmt.Printf("%s: string %d %q: %s\n  reference %v\n  ours      %v\n", name, i, clip(corpus[i]), what, want, have)
	}
	for i := range corpus {
		l := refs[i]
		r.strings++
		r.tokens += len(l.N)
		if !slices.Equal(withSpecial[i], l.S) {
			r.encodeMiss++
			show(i, "encode", l.S, withSpecial[i])
		}
		if !slices.Equal(without[i], l.N) {
			r.plainMis++
			show(i, "encode without special tokens", l.N, without[i])
		}
		if l.D == nil || l.K == nil {
			return r, fmt.Errorf("reference line %d: no decode", i+1)
		}
		if d := tok.Decode(l.N, false); d != *l.D {
			r.decodeMiss++
			show(i, "decode", *l.D, d)
		}
		if d := tok.Decode(l.S, true); d != *l.K {
			r.skipMiss++
			show(i, "decode skipping special tokens", *l.K, d)
		}
	}
	return r, nil
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// readCorpus reads one JSON string a line.
func readCorpus(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var s string
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, len(out)+1, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}
