// Command streamingset writes a dlrm-v3 synthetic streaming data set in
// the reference form (sampled_data/ as streaming_synthetic_data.py
// writes it) for the tests' dlrmv3-signature model, which meets the
// closed targets on it (package internal/bench/dlrmv3, RoundSet). Its
// defaults are the round's size, 349823 requests (the performance sample
// count and the data set size), over the reference's 100 timestamps.
//
// Usage:
//
//	streamingset -dir DIR [-requests N] [-timestamps T] [-seed S]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv3"
)

func main() {
	dir := flag.String("dir", "", "directory to write sampled_data/ into (created if missing)")
	var s dlrmv3.RoundSet
	flag.IntVar(&s.Requests, "requests", dlrmv3.RoundRequests, "number of requests (samples)")
	flag.IntVar(&s.TotalTS, "timestamps", 100, "timestamps, the last tenth of them for inference")
	flag.Uint64Var(&s.Seed, "seed", 1, "seed of the ids, ratings and candidate order")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 || s.Requests <= 0 || s.TotalTS < 10 {
		fmt.Fprintln(os.Stderr, "usage: streamingset -dir DIR [-requests N] [-timestamps T (at least 10)] [-seed S]")
		os.Exit(2)
	}
	if err := s.Write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
