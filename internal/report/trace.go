package report

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// maxTraceUS bounds a trace timestamp (µs): a year, far beyond any run and
// far inside time.Duration.
const maxTraceUS = 365 * 24 * 3600 * 1e6

// ErrTrace is wrapped by every error about a malformed trace.
var ErrTrace = errors.New("malformed trace")

// Sample is one traced sample.
type Sample struct {
	// At is when its query was scheduled, relative to the first.
	At time.Duration
	// Latency is from scheduled to completed.
	Latency time.Duration
	// IssueDelay is how late the LoadGen issued its query: scheduled to
	// issued (the trace's issue_start_ns).
	IssueDelay time.Duration
	// Query is its query's sequence number (query_seq): the samples of one
	// MultiStream query share it.
	Query uint64
}

type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	TS   float64 `json:"ts"`
	Args struct {
		CompleteNS   *int64 `json:"complete_ns"`
		IssueStartNS int64  `json:"issue_start_ns"`
		QuerySeq     uint64 `json:"query_seq"`
	} `json:"args"`
}

// ReadTrace reads the samples of a LoadGen Chrome trace
// (mlperf_log_trace.json): every "Sample" begin event with its complete_ns,
// issue_start_ns and query_seq arguments, sorted by schedule time (then
// query). It streams the events.
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
			if *ev.Args.CompleteNS < 0 || ev.Args.IssueStartNS < 0 {
				return nil, fmt.Errorf("%w: sample %d: negative complete_ns %d or issue_start_ns %d",
					ErrTrace, len(out), *ev.Args.CompleteNS, ev.Args.IssueStartNS)
			}
			if math.IsNaN(ev.TS) || math.Abs(ev.TS) > maxTraceUS {
				return nil, fmt.Errorf("%w: sample %d: ts %v out of range", ErrTrace, len(out), ev.TS)
			}
			out = append(out, Sample{At: time.Duration(ev.TS * 1e3), Latency: time.Duration(*ev.Args.CompleteNS),
				IssueDelay: time.Duration(ev.Args.IssueStartNS), Query: ev.Args.QuerySeq})
		}
		if err := expectDelim(dec, ']'); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: no traceEvents", ErrTrace)
	}
	slices.SortStableFunc(out, func(a, b Sample) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Query, b.Query))
	})
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
