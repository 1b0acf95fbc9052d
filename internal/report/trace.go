package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// ErrTrace is wrapped by every error about a malformed trace.
var ErrTrace = errors.New("malformed trace")

// Sample is one traced sample: when it was scheduled, relative to the
// first, and its latency (scheduled to completed).
type Sample struct {
	At      time.Duration
	Latency time.Duration
}

type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	TS   float64 `json:"ts"`
	Args struct {
		CompleteNS *int64 `json:"complete_ns"`
	} `json:"args"`
}

// ReadTrace reads the samples of a LoadGen Chrome trace
// (mlperf_log_trace.json): every "Sample" begin event with its complete_ns
// argument, sorted by schedule time. It streams the events.
func ReadTrace(r io.Reader) ([]Sample, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var out []Sample
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTrace, err)
		}
		if key, _ := tok.(string); key != "traceEvents" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrTrace, err)
			}
			continue
		}
		found = true
		if err := expectDelim(dec, '['); err != nil {
			return nil, err
		}
		for dec.More() {
			var ev traceEvent
			if err := dec.Decode(&ev); err != nil {
				return nil, fmt.Errorf("%w: event %d: %w", ErrTrace, len(out), err)
			}
			if ev.Name != "Sample" || ev.Ph != "b" || ev.Args.CompleteNS == nil {
				continue
			}
			if *ev.Args.CompleteNS < 0 {
				return nil, fmt.Errorf("%w: negative complete_ns %d", ErrTrace, *ev.Args.CompleteNS)
			}
			out = append(out, Sample{At: time.Duration(ev.TS * 1e3), Latency: time.Duration(*ev.Args.CompleteNS)})
		}
		if err := expectDelim(dec, ']'); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: no traceEvents", ErrTrace)
	}
	slices.SortFunc(out, func(a, b Sample) int { return int(a.At - b.At) })
	if len(out) > 0 {
		t0 := out[0].At
		for i := range out {
			out[i].At -= t0
		}
	}
	return out, nil
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrTrace, err)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("%w: want %v, got %v", ErrTrace, d, tok)
	}
	return nil
}
