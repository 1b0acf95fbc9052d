package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
)

// Result is the outcome of one check.
type Result struct {
	Name string
	// Err is nil when the check passed.
	Err error
	// Detail says what was observed, for a passing check too.
	Detail string
	// Skipped: the check could not run because an earlier one failed.
	Skipped bool
}

// Input is what the checks feed the plugin.
type Input struct {
	Model host.Model
	// Samples are loaded with LoadSamples; at least one.
	Samples []host.Sample
	// Timeout bounds each check; 0 means one minute.
	Timeout time.Duration
}

// ErrFailed is returned by Run when a check failed.
var ErrFailed = errors.New("conformance checks failed")

// Run runs the checks against an opened backend and closes it. It returns
// every check's result, and ErrFailed (joined with the first failure) when
// any failed.
func Run(ctx context.Context, b host.Backend, in Input) ([]Result, error) {
	r := &runner{b: b, in: in, col: newCollector(), timeout: in.Timeout}
	if r.timeout == 0 {
		r.timeout = time.Minute
	}
	b.SetHandler(r.col)
	for _, c := range r.checks() {
		if r.stop {
			r.results = append(r.results, Result{Name: c.name, Skipped: true})
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, r.timeout)
		detail, err := c.run(cctx)
		cancel()
		r.results = append(r.results, Result{Name: c.name, Err: err, Detail: detail})
		if err != nil && c.fatal {
			r.stop = true
		}
	}
	if r.stop {
		b.Close()
	}
	var first error
	for _, res := range r.results {
		if res.Err != nil {
			first = fmt.Errorf("%s: %w", res.Name, res.Err)
			break
		}
	}
	if first != nil {
		return r.results, errors.Join(ErrFailed, first)
	}
	return r.results, nil
}

type check struct {
	name string
	// fatal: later checks cannot run when this one fails.
	fatal bool
	run   func(ctx context.Context) (string, error)
}

type runner struct {
	b       host.Backend
	in      Input
	col     *collector
	timeout time.Duration
	nextID  uint64
	results []Result
	stop    bool
}

func (r *runner) checks() []check {
	return []check{
		{"info", true, r.info},
		{"option schema", false, r.options},
		{"load model", true, r.load},
		{"load samples", true, func(ctx context.Context) (string, error) {
			return fmt.Sprintf("%d samples", len(r.in.Samples)), r.b.LoadSamples(ctx, r.in.Samples)
		}},
		{"warm-up", false, func(ctx context.Context) (string, error) { return "", r.b.Warmup(ctx) }},
		{"single sample", true, r.single},
		{"deterministic output", false, r.deterministic},
		{"batch over max batch", false, r.batch},
		{"concurrent queries", false, r.concurrent},
		{"one-sample queries back to back", false, r.backToBack},
		{"output only when wanted", false, r.noOutput},
		{"flush", false, func(ctx context.Context) (string, error) { return "", r.b.Flush(ctx) }},
		{"unknown sample index", false, r.badIndex},
		{"unload samples", false, r.unload},
		{"close", false, r.close},
	}
}

// options reports the plugin's option schema (ABI v1.2) and checks the
// options given against it.
func (r *runner) options(context.Context) (string, error) {
	i := r.b.Info()
	if len(i.Options) == 0 {
		return "none declared (the plugin checks its options itself)", nil
	}
	return fmt.Sprintf("%d options declared", len(i.Options)), i.CheckOptions(r.in.Model.Options)
}

// load loads the model and reports what the plugin said of the system
// (ABI v1.2) and the tensors its samples will have.
func (r *runner) load(ctx context.Context) (string, error) {
	if err := r.b.Load(ctx, r.in.Model); err != nil {
		return "", err
	}
	var parts []string
	if f := r.b.Info().Facts; f != nil {
		parts = append(parts, fmt.Sprintf("framework %q, devices used %v", f.Framework, f.DevicesUsed))
	}
	if in := r.in.Model.Inputs; len(in) > 0 {
		var names []string
		for _, t := range in {
			names = append(names, fmt.Sprintf("%s %s%v", t.Name, t.DType, t.Shape))
		}
		parts = append(parts, "inputs "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; "), nil
}

// backToBack issues one-sample queries one after the other, as the
// Server scenario does, and no flush: a plugin that batches across
// queries must still answer each, once, without being flushed.
func (r *runner) backToBack(ctx context.Context) (string, error) {
	n := min(max(8, 2*r.b.Info().MaxBatch+1), 1025)
	recs := r.records(n, abi.FlagWantOutput)
	r.col.expect(recs)
	start := time.Now()
	for i := range recs {
		if err := r.b.Issue(ctx, recs[i:i+1]); err != nil {
			return "", fmt.Errorf("issue: %w", err)
		}
	}
	if err := r.col.wait(ctx, r.b); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d queries in %v", n, time.Since(start).Round(time.Microsecond)), r.okAll(recs)
}

func (r *runner) info(context.Context) (string, error) {
	i := r.b.Info()
	var errs []error
	if i.Name == "" {
		errs = append(errs, errors.New("empty name"))
	}
	if i.ABIMajor != abi.Major {
		errs = append(errs, fmt.Errorf("ABI v%d, the host speaks v%d", i.ABIMajor, abi.Major))
	}
	if i.MaxInFlight < 1 || i.MaxBatch < 0 {
		errs = append(errs, fmt.Errorf("max in flight %d, max batch %d", i.MaxInFlight, i.MaxBatch))
	}
	return fmt.Sprintf("%s %s, ABI v%d.%d, %s, max batch %d, max in flight %d, capabilities %v",
		i.Name, i.Version, i.ABIMajor, i.ABIMinor, i.Transport, i.MaxBatch, i.MaxInFlight, i.Capabilities), errors.Join(errs...)
}

// records makes n issue records over the loaded samples.
func (r *runner) records(n int, flags abi.IssueFlag) []abi.IssueRecord {
	recs := make([]abi.IssueRecord, n)
	for i := range recs {
		r.nextID++
		recs[i] = abi.IssueRecord{ID: r.nextID, Index: r.in.Samples[i%len(r.in.Samples)].Index, Flags: flags}
	}
	return recs
}

// issue issues recs as one query and waits for every completion.
func (r *runner) issue(ctx context.Context, recs []abi.IssueRecord) error {
	r.col.expect(recs)
	if err := r.b.Issue(ctx, recs); err != nil {
		return fmt.Errorf("issue: %w", err)
	}
	return r.col.wait(ctx, r.b)
}

// okAll checks that every record completed OK, with output when wanted.
func (r *runner) okAll(recs []abi.IssueRecord) error {
	for _, rec := range recs {
		c := r.col.get(rec.ID)
		if err := c.Err(); err != nil {
			return fmt.Errorf("sample %d (index %d): %w", rec.ID, rec.Index, err)
		}
		if rec.Flags&abi.FlagWantOutput != 0 && len(c.Data) == 0 {
			return fmt.Errorf("sample %d (index %d): no output although it was wanted", rec.ID, rec.Index)
		}
	}
	return nil
}

func (r *runner) single(ctx context.Context) (string, error) {
	recs := r.records(1, abi.FlagWantOutput)
	start := time.Now()
	if err := r.issue(ctx, recs); err != nil {
		return "", err
	}
	d := time.Since(start)
	if err := r.okAll(recs); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d output bytes in %v", len(r.col.get(recs[0].ID).Data), d.Round(time.Microsecond)), nil
}

func (r *runner) deterministic(ctx context.Context) (string, error) {
	a, b := r.records(1, abi.FlagWantOutput), r.records(1, abi.FlagWantOutput)
	if err := r.issue(ctx, a); err != nil {
		return "", err
	}
	if err := r.issue(ctx, b); err != nil {
		return "", err
	}
	if err := r.okAll(append(a, b...)); err != nil {
		return "", err
	}
	if !bytes.Equal(r.col.get(a[0].ID).Data, r.col.get(b[0].ID).Data) {
		return "", fmt.Errorf("sample index %d gave two different outputs", a[0].Index)
	}
	return "same sample, same output", nil
}

func (r *runner) batch(ctx context.Context) (string, error) {
	n := 2*r.b.Info().MaxBatch + 1
	if n == 1 {
		n = 64
	}
	n = min(n, 1024)
	recs := r.records(n, abi.FlagWantOutput)
	if err := r.issue(ctx, recs); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d samples in one query", n), r.okAll(recs)
}

func (r *runner) concurrent(ctx context.Context) (string, error) {
	q := max(2, r.b.Info().MaxInFlight*2)
	per := 3
	recs := r.records(q*per, abi.FlagWantOutput)
	r.col.expect(recs)
	var wg sync.WaitGroup
	errs := make([]error, q)
	for i := range q {
		wg.Go(func() { errs[i] = r.b.Issue(ctx, recs[i*per:(i+1)*per]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	if err := r.col.wait(ctx, r.b); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d queries issued at once", q), r.okAll(recs)
}

func (r *runner) noOutput(ctx context.Context) (string, error) {
	recs := r.records(4, 0)
	if err := r.issue(ctx, recs); err != nil {
		return "", err
	}
	if err := r.okAll(recs); err != nil {
		return "", err
	}
	n := 0
	for _, rec := range recs {
		n += len(r.col.get(rec.ID).Data)
	}
	return fmt.Sprintf("%d output bytes for 4 samples issued without want-output", n), nil
}

func (r *runner) badIndex(ctx context.Context) (string, error) {
	r.nextID++
	var maxIdx uint64
	for _, s := range r.in.Samples {
		maxIdx = max(maxIdx, s.Index)
	}
	rec := abi.IssueRecord{ID: r.nextID, Index: maxIdx + 1_000_003, Flags: abi.FlagWantOutput}
	r.col.expect([]abi.IssueRecord{rec})
	if err := r.b.Issue(ctx, []abi.IssueRecord{rec}); err != nil {
		// Refusing the query up front is a clean answer too.
		return "refused at issue: " + err.Error(), nil
	}
	if err := r.col.wait(ctx, r.b); err != nil {
		return "", err
	}
	c := r.col.get(rec.ID)
	if c.Status == abi.OK {
		return "", fmt.Errorf("index %d was never loaded, yet it completed OK", rec.Index)
	}
	select {
	case <-r.b.Done():
		return "", fmt.Errorf("the plugin stopped serving after one bad sample: %w", r.b.Err())
	default:
	}
	return "failed the sample only: " + c.Err().Error(), nil
}

func (r *runner) unload(ctx context.Context) (string, error) {
	idx := make([]uint64, len(r.in.Samples))
	for i, s := range r.in.Samples {
		idx[i] = s.Index
	}
	return "", r.b.UnloadSamples(ctx, idx)
}

func (r *runner) close(ctx context.Context) (string, error) {
	if err := r.b.Close(); err != nil {
		return "", err
	}
	if err := r.b.Close(); err != nil {
		return "", fmt.Errorf("second Close: %w", err)
	}
	if err := r.b.Issue(ctx, r.records(1, 0)); !errors.Is(err, host.ErrClosed) {
		return "", fmt.Errorf("issue after close returned %v, want host.ErrClosed", err)
	}
	return "", nil
}
