package sdktest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Config adapts the kit to a backend. The zero value suits a backend that
// loads any model and accepts any sample bytes.
type Config struct {
	// Model is what Load gets.
	Model sdk.Model
	// Samples are loaded before the queries; nil means [DefaultSamples].
	// Indices must be distinct.
	Samples []sdk.LoadedSample
	// Check, when set, verifies the output of a sample that completed OK
	// and was issued wanting its output.
	Check func(s sdk.LoadedSample, out []byte) error
	// BadModel, when set with New, is a model Load must refuse: the kit
	// loads it into a fresh backend from New and expects an error.
	BadModel *sdk.Model
	// New returns a fresh backend, for the checks that need one.
	New func() sdk.Backend
	// Timeout bounds each wait for completions; 0 means one minute.
	Timeout time.Duration
}

// DefaultSamples returns n samples of size bytes each, every one
// different: sample i holds bytes derived from i.
func DefaultSamples(n, size int) []sdk.LoadedSample {
	out := make([]sdk.LoadedSample, n)
	for i := range out {
		data := make([]byte, size)
		for j := range data {
			data[j] = byte(i*31 + j*7 + 1)
		}
		out[i] = sdk.LoadedSample{Index: uint64(i), Data: data}
	}
	return out
}

// Echo is a Check for backends whose output is the sample's bytes.
func Echo(s sdk.LoadedSample, out []byte) error {
	if !bytes.Equal(s.Data, out) {
		return fmt.Errorf("sample index %d: output %q, want the sample's bytes %q", s.Index, out, s.Data)
	}
	return nil
}

// Run runs the conformance checks on b with the zero Config.
func Run(t *testing.T, b sdk.Backend) {
	t.Helper()
	Config{}.Run(t, b)
}

// Run runs the conformance checks on b: it loads the model and the
// samples, runs the queries, unloads and closes b. The checks are subtests
// of one lifecycle, in order; they do not run in parallel.
func (c Config) Run(t *testing.T, b sdk.Backend) {
	t.Helper()
	if c.Samples == nil {
		c.Samples = DefaultSamples(64, 32)
	}
	if c.Timeout == 0 {
		c.Timeout = time.Minute
	}
	require.NotEmpty(t, c.Samples, "sdktest: Config.Samples is empty")
	k := &kit{t: t, cfg: c, rec: newRecorder(), byIndex: map[uint64]sdk.LoadedSample{}}
	for _, s := range c.Samples {
		_, dup := k.byIndex[s.Index]
		require.False(t, dup, "sdktest: Config.Samples has index %d twice", s.Index)
		// A copy: a backend that writes to its samples shows.
		k.byIndex[s.Index] = cloneSample(s)
	}
	k.spy = newSpy(b, func(i uint64) (sdk.LoadedSample, bool) { s, ok := k.byIndex[i]; return s, ok })
	k.srv = sdk.NewServer(b, sdk.ServerConfig{Logger: slog.New(slog.NewTextHandler(t.Output(), nil)), ModelPath: true,
		Observe: k.spy.observe})
	k.run()
	if c.BadModel != nil && c.New != nil {
		t.Run("bad model", k.badModel)
	}
	if c.New != nil {
		t.Run("unknown option", k.unknownOption)
	}
}

// kit is one run of the checks.
type kit struct {
	t       *testing.T
	cfg     Config
	spy     *spy
	rec     *recorder
	srv     *sdk.Server
	sess    *sdk.Session
	info    *backendv1.InfoResponse
	byIndex map[uint64]sdk.LoadedSample
	nextID  uint64
}

// step runs one check. The steps share one backend: a failed
// precondition (a require) stops those after it, a failed check does not.
func (k *kit) step(name string, f func(t *testing.T)) bool {
	stopped := false
	k.t.Run(name, func(t *testing.T) {
		defer func() {
			for _, v := range k.rec.takeViolations() {
				t.Errorf("backend bug: %s", v)
			}
		}()
		stopped = true
		f(t)
		stopped = false // not reached after FailNow
	})
	return !stopped
}

func (k *kit) run() {
	steps := []struct {
		name string
		f    func(t *testing.T)
	}{
		{"info", k.checkInfo},
		{"calls before load fail", k.checkBeforeLoad},
		{"load", k.checkLoad},
		{"load samples", k.checkLoadSamples},
		{"warmup", k.checkWarmup},
		{"single samples", k.checkSingles},
		{"multi-sample query", k.checkMulti},
		{"without output", k.checkNoOutput},
		{"concurrent queries", k.checkConcurrent},
		{"one-sample queries back to back", k.checkBackToBack},
		{"tensors reach the backend", k.checkTensors},
		{"flush", k.checkFlush},
		{"empty query", k.checkEmpty},
		{"unknown sample index", k.checkUnknownIndex},
		{"unload samples", k.checkUnload},
		{"close", k.checkClose},
	}
	for _, s := range steps {
		if !k.step(s.name, s.f) {
			if k.sess != nil {
				k.sess.Abort()
			}
			k.srv.Close()
			return
		}
	}
}

func codeOf(st *backendv1.Status) abi.Code { return abi.Code(st.GetCode()) }

func requireOK(t *testing.T, st *backendv1.Status, what string) {
	t.Helper()
	if c := codeOf(st); c != abi.OK {
		require.FailNow(t, what+" failed", "%s: %s", c, st.GetMessage())
	}
}

func (k *kit) checkInfo(t *testing.T) {
	var direct sdk.Info
	done := make(chan struct{})
	go func() {
		defer close(done)
		direct = k.spy.b.Info()
	}()
	select {
	case <-done:
	case <-time.After(k.cfg.Timeout):
		require.FailNow(t, "Info did not return", "Info must not block; it ran for %v", k.cfg.Timeout)
	}
	assert.NotEmpty(t, direct.Name, "Info().Name")
	assert.NotEmpty(t, direct.Version, "Info().Version")
	assert.GreaterOrEqual(t, direct.MaxBatch, 0, "Info().MaxBatch")
	assert.GreaterOrEqual(t, direct.MaxInFlight, 0, "Info().MaxInFlight")

	k.info = k.srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
	requireOK(t, k.info.GetStatus(), "Info")
	assert.Equal(t, direct.Name, k.info.GetName(), "Info is stable")
	assert.Equal(t, uint32(abi.Major), k.info.GetAbiMajor())
}

func (k *kit) checkBeforeLoad(t *testing.T) {
	resp := k.srv.LoadSamples(t.Context(), k.cfg.Samples[:1], nil)
	assert.Equal(t, abi.FailedPrecondition.String(), codeOf(resp.GetStatus()).String(), "LoadSamples before Load")
	_, err := k.srv.OpenSession(t.Context(), k.rec)
	assert.Equal(t, abi.FailedPrecondition.String(), sdk.CodeOf(err).String(), "a session before Load")
	assert.Zero(t, k.spy.infers.Load(), "Infer ran before Load")
}

func (k *kit) checkLoad(t *testing.T) {
	m := k.cfg.Model
	loaded := k.srv.Load(t.Context(), m.LoadRequest())
	requireOK(t, loaded.GetStatus(), "Load")
	// Load's options may change the limits (ABI v1.1): from here the kit
	// holds the backend to the ones Load answered, and Info must agree.
	info := k.srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
	assert.Equal(t, loaded.GetMaxBatch(), info.GetMaxBatch(), "Info's MaxBatch after Load is the one Load answered")
	assert.Equal(t, loaded.GetMaxInFlight(), info.GetMaxInFlight(), "Info's MaxInFlight after Load is the one Load answered")
	assert.Equal(t, k.info.GetName(), info.GetName(), "Load changes nothing of Info but the limits")
	assert.Equal(t, k.info.GetCapabilities(), info.GetCapabilities(), "Load changes nothing of Info but the limits")
	k.info = info
	again := k.srv.Load(t.Context(), m.LoadRequest())
	assert.Equal(t, abi.FailedPrecondition.String(), codeOf(again.GetStatus()).String(), "a second Load")
}

func (k *kit) checkLoadSamples(t *testing.T) {
	requireOK(t, k.srv.LoadSamples(t.Context(), k.cfg.Samples, nil).GetStatus(), "LoadSamples")
	sess, err := k.srv.OpenSession(context.WithoutCancel(t.Context()), k.rec)
	require.NoError(t, err, "open a session")
	k.sess = sess
}

func (k *kit) checkWarmup(t *testing.T) {
	requireOK(t, k.srv.Warmup(t.Context()).GetStatus(), "Warmup")
}

// query is one query to issue: its records and the ids to wait for.
type query struct {
	records []byte
	ids     []uint64
	samples []sdk.LoadedSample // by id order
	want    bool
}

// newQuery builds a query of the samples at the given indices into
// k.cfg.Samples, with fresh ids.
func (k *kit) newQuery(positions []int, want bool) query {
	var q query
	q.want = want
	for _, p := range positions {
		s := k.cfg.Samples[p]
		k.nextID++
		id := k.nextID*7919 + 3 // ids are not indices, nor consecutive
		flags := abi.IssueFlag(0)
		if want {
			flags = abi.FlagWantOutput
		}
		q.records = abi.AppendIssueRecord(q.records, abi.IssueRecord{ID: id, Index: s.Index, Flags: flags})
		q.ids = append(q.ids, id)
		q.samples = append(q.samples, s)
	}
	return q
}

// issue issues queries, waits for their completions and checks them.
func (k *kit) issue(t *testing.T, qs ...query) {
	t.Helper()
	var ids []uint64
	for _, q := range qs {
		require.NoError(t, k.sess.Issue(q.records))
		ids = append(ids, q.ids...)
	}
	require.NoError(t, k.rec.waitIDs(k.cfg.Timeout, ids))
	k.checkAnswers(t, qs)
}

// checkAnswers checks that every sample of qs completed OK, with the
// output Check wants, exactly once.
func (k *kit) checkAnswers(t *testing.T, qs []query) {
	t.Helper()
	var bad []string
	n := 0
	for _, q := range qs {
		n += len(q.ids)
		for i, id := range q.ids {
			res, _ := k.rec.get(id)
			s := q.samples[i]
			switch {
			case res.code != abi.OK:
				bad = append(bad, fmt.Sprintf("sample id %d (index %d) failed: %s: %s", id, s.Index, res.code, res.data))
			case q.want && k.cfg.Check != nil:
				if err := k.cfg.Check(s, res.data); err != nil {
					bad = append(bad, fmt.Sprintf("sample id %d: %v", id, err))
				}
			}
		}
	}
	reportSome(t, bad, n)
	assert.Empty(t, k.rec.duplicates(), "sample ids completed more than once")
}

// reportSome fails t with the first few of a list of problems.
func reportSome(t *testing.T, problems []string, of int) {
	t.Helper()
	const shown = 3
	if len(problems) == 0 {
		return
	}
	t.Errorf("%d of %d samples are wrong; the first:\n%s", len(problems), of, strings.Join(problems[:min(shown, len(problems))], "\n"))
}

func (k *kit) checkSingles(t *testing.T) {
	for p := range k.cfg.Samples {
		k.issue(t, k.newQuery([]int{p}, true))
	}
}

// maxBatch is the backend's MaxBatch.
func (k *kit) maxBatch() int { return int(k.info.GetMaxBatch()) }

func (k *kit) checkMulti(t *testing.T) {
	// Twice MaxBatch plus one samples, so the dispatcher splits the query.
	n := max(len(k.cfg.Samples), 2*k.maxBatch()+1)
	positions := make([]int, n)
	for i := range positions {
		positions[i] = i % len(k.cfg.Samples)
	}
	before := k.spy.batchCount()
	k.issue(t, k.newQuery(positions, true))
	k.checkBatchSizes(t, k.spy.batchesSince(before))
}

// checkBatchSizes checks that no call of more than one sample went past
// MaxBatch samples (or units, for a BatchSizer).
func (k *kit) checkBatchSizes(t *testing.T, bs []batch) {
	t.Helper()
	mb := k.maxBatch()
	if mb == 0 {
		return
	}
	for _, b := range bs {
		if len(b.ids) > 1 && b.units > mb {
			t.Errorf("a call of %d samples weighing %d, past MaxBatch %d", len(b.ids), b.units, mb)
			return
		}
	}
}

func (k *kit) checkNoOutput(t *testing.T) {
	positions := make([]int, len(k.cfg.Samples))
	for i := range positions {
		positions[i] = i
	}
	k.issue(t, k.newQuery(positions, false))
}

func (k *kit) checkConcurrent(t *testing.T) {
	inFlight := max(1, int(k.info.GetMaxInFlight()))
	rng := rand.New(rand.NewPCG(1, 2))
	qs := make([]query, 8*inFlight+8)
	for i := range qs {
		positions := make([]int, 1+rng.IntN(max(1, min(2*k.maxBatch(), 3*len(k.cfg.Samples)))))
		for j := range positions {
			positions[j] = rng.IntN(len(k.cfg.Samples))
		}
		qs[i] = k.newQuery(positions, rng.IntN(2) == 0)
	}
	before := k.spy.batchCount()
	k.issue(t, qs...)
	assert.LessOrEqual(t, k.spy.maxInFlight.Load(), int64(inFlight), "more Infer calls at once than MaxInFlight")
	k.checkBatchSizes(t, k.spy.batchesSince(before))
}

// checkBackToBack issues one-sample queries one after the other, as the
// Server scenario does, without a flush: each is answered once whatever
// the batching, no call is past MaxBatch, and with a BatchTimeout no call
// of fewer than MaxBatch samples started before its oldest sample had
// waited BatchTimeout (for a BatchSizer, whose calls may end short of
// MaxBatch when the next sample does not fit, that is not checked).
func (k *kit) checkBackToBack(t *testing.T) {
	mb := k.maxBatch()
	n := 8
	if mb > 0 {
		n = min(2*mb+1, 1025)
	}
	before := k.spy.batchCount()
	issued := map[uint64]time.Time{}
	var ids []uint64
	qs := make([]query, n)
	for i := range qs {
		qs[i] = k.newQuery([]int{i % len(k.cfg.Samples)}, true)
	}
	for _, q := range qs {
		issued[q.ids[0]] = time.Now()
		require.NoError(t, k.sess.Issue(q.records))
		ids = append(ids, q.ids...)
	}
	require.NoError(t, k.rec.waitIDs(k.cfg.Timeout, ids))
	k.checkAnswers(t, qs)
	bs := k.spy.batchesSince(before)
	k.checkBatchSizes(t, bs)
	timeout := k.spy.b.Info().BatchTimeout
	if _, sized := k.spy.b.(sdk.BatchSizer); timeout <= 0 || sized || mb == 0 {
		return
	}
	for _, b := range bs {
		if len(b.ids) >= mb {
			continue
		}
		oldest := time.Time{}
		for _, id := range b.ids {
			if at, ok := issued[id]; ok && (oldest.IsZero() || at.Before(oldest)) {
				oldest = at
			}
		}
		if !oldest.IsZero() && b.at.Sub(oldest) < timeout {
			t.Errorf("a call of %d samples (MaxBatch %d) started %v after its oldest sample was issued, before BatchTimeout %v",
				len(b.ids), mb, b.at.Sub(oldest), timeout)
			return
		}
	}
}

// checkTensors checks that every sample reached Infer (or Submit) with the
// tensors it was loaded with: names, dtypes, shapes and bytes.
func (k *kit) checkTensors(t *testing.T) {
	k.spy.mu.Lock()
	defer k.spy.mu.Unlock()
	var bad []string
	for _, p := range k.spy.problems {
		if strings.HasPrefix(p, "sample index") {
			bad = append(bad, p)
		}
	}
	reportSome(t, bad, len(bad))
}

func (k *kit) checkFlush(t *testing.T) {
	flushes := k.rec.flushCount()
	q := k.newQuery([]int{0, len(k.cfg.Samples) - 1}, true)
	require.NoError(t, k.sess.Issue(q.records))
	require.NoError(t, k.sess.Flush())
	require.True(t, k.rec.waitFor(k.cfg.Timeout, func() bool { return len(k.rec.flushes) > flushes }), "no answer to a flush within %v", k.cfg.Timeout)
	for _, id := range q.ids {
		_, done := k.rec.get(id)
		assert.True(t, done, "sample id %d, issued before the flush, was not complete when the flush was answered", id)
	}
	// A flush with nothing in flight is answered too.
	require.NoError(t, k.sess.Flush())
	require.True(t, k.rec.waitFor(k.cfg.Timeout, func() bool { return len(k.rec.flushes) > flushes+1 }), "no answer to an idle flush")
}

func (k *kit) checkEmpty(t *testing.T) {
	before := k.spy.infers.Load()
	require.NoError(t, k.sess.Issue(nil))
	// A flush is answered after every query before it: the empty one too.
	k.flushAndWait(t)
	assert.Equal(t, before, k.spy.infers.Load(), "an empty query reached Infer")
	assert.Zero(t, k.spy.emptyCalls.Load(), "Infer got a query without samples")
}

func (k *kit) flushAndWait(t *testing.T) {
	t.Helper()
	n := k.rec.flushCount()
	require.NoError(t, k.sess.Flush())
	require.True(t, k.rec.waitFor(k.cfg.Timeout, func() bool { return len(k.rec.flushes) > n }), "no answer to a flush")
}

// unusedIndex returns a sample index the configuration does not load.
func (k *kit) unusedIndex() uint64 {
	idx := uint64(1 << 40)
	for {
		if _, ok := k.byIndex[idx]; !ok {
			return idx
		}
		idx++
	}
}

func (k *kit) checkUnknownIndex(t *testing.T) {
	q := k.newQuery([]int{0}, true)
	k.nextID++
	bad := k.nextID*7919 + 5
	records := abi.AppendIssueRecord(slices.Clone(q.records), abi.IssueRecord{ID: bad, Index: k.unusedIndex(), Flags: abi.FlagWantOutput})
	require.NoError(t, k.sess.Issue(records))
	require.NoError(t, k.rec.waitIDs(k.cfg.Timeout, []uint64{q.ids[0], bad}))
	good, _ := k.rec.get(q.ids[0])
	assert.Equal(t, abi.OK.String(), good.code.String(), "the good sample of a query with a bad index: %s", good.data)
	res, _ := k.rec.get(bad)
	assert.Equal(t, abi.InvalidArgument.String(), res.code.String(), "a sample index never loaded")
	assert.Contains(t, string(res.data), "not loaded")
}

func (k *kit) checkUnload(t *testing.T) {
	indices := make([]uint64, len(k.cfg.Samples))
	for i, s := range k.cfg.Samples {
		indices[i] = s.Index
	}
	requireOK(t, k.srv.UnloadSamples(t.Context(), &backendv1.UnloadSamplesRequest{Indices: indices}).GetStatus(), "UnloadSamples")
	before := k.spy.infers.Load()
	q := k.newQuery([]int{0}, true)
	require.NoError(t, k.sess.Issue(q.records))
	require.NoError(t, k.rec.waitIDs(k.cfg.Timeout, q.ids))
	res, _ := k.rec.get(q.ids[0])
	assert.Equal(t, abi.InvalidArgument.String(), res.code.String(), "a sample unloaded before its query")
	assert.Equal(t, before, k.spy.infers.Load(), "an unloaded sample reached Infer")
}

func (k *kit) checkClose(t *testing.T) {
	k.sess.End()
	requireOK(t, k.srv.Close().GetStatus(), "Close")
	requireOK(t, k.srv.Close().GetStatus(), "a second Close")
	resp := k.srv.Load(t.Context(), &backendv1.LoadRequest{})
	assert.Equal(t, abi.FailedPrecondition.String(), codeOf(resp.GetStatus()).String(), "Load after Close")

	k.spy.mu.Lock()
	defer k.spy.mu.Unlock()
	assert.Equal(t, 1, k.spy.closes, "Close calls on the backend")
	for _, p := range k.spy.problems {
		assert.NotContains(t, p, "after Close")
	}
	calls := k.spy.calls
	require.NotEmpty(t, calls)
	assert.Equal(t, "Info", calls[0], "the first call: %v", calls)
	assert.Equal(t, "Close", calls[len(calls)-1], "the last call: %v", calls)
	for _, infer := range []string{"Infer", "Submit"} {
		if i := slices.Index(calls, infer); i >= 0 {
			assert.Less(t, slices.Index(calls, "Load"), i, "%s before Load: %v", infer, calls)
		}
	}
	if _, ok := k.spy.b.(sdk.Submitter); ok {
		assert.NotContains(t, calls, "Infer", "the SDK calls Submit of a Submitter, never Infer")
	}
}

func (k *kit) badModel(t *testing.T) {
	b := k.cfg.New()
	srv := sdk.NewServer(b, sdk.ServerConfig{Logger: slog.New(slog.NewTextHandler(t.Output(), nil)), ModelPath: true})
	defer srv.Close()
	requireOK(t, srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major}).GetStatus(), "Info")
	resp := srv.Load(t.Context(), k.cfg.BadModel.LoadRequest())
	assert.NotEqual(t, abi.OK.String(), codeOf(resp.GetStatus()).String(), "Load accepted the bad model")
	assert.NotEmpty(t, resp.GetStatus().GetMessage(), "a failed Load says why")
	_, err := srv.OpenSession(t.Context(), newRecorder())
	assert.Error(t, err, "a session after a failed Load")
}

// unknownOption loads a fresh backend that declares an option schema with
// a misspelt option: Load refuses it as INVALID_ARGUMENT naming the option
// and, when there is one, the close match.
func (k *kit) unknownOption(t *testing.T) {
	b := k.cfg.New()
	srv := sdk.NewServer(b, sdk.ServerConfig{Logger: slog.New(slog.NewTextHandler(t.Output(), nil)), ModelPath: true})
	defer srv.Close()
	info := srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major})
	requireOK(t, info.GetStatus(), "Info")
	if len(info.GetOptions()) == 0 {
		t.Skip("the backend declares no option schema (Info.Options)")
	}
	name := info.GetOptions()[0].GetName()
	m := k.cfg.Model
	m.Options = map[string]string{name + "x": "1"}
	resp := srv.Load(t.Context(), m.LoadRequest())
	assert.Equal(t, abi.InvalidArgument.String(), codeOf(resp.GetStatus()).String(), "Load with an unknown option")
	assert.Contains(t, resp.GetStatus().GetMessage(), fmt.Sprintf("unknown option %q (did you mean %s", name+"x", name))
}

// TensorSamples returns a schema of three int32 tensors of one length per
// sample, named as BERT's (input_ids, input_mask, segment_ids), and n
// samples of lengths 1 to 24: for Config.Model.Inputs and Config.Samples
// of a backend that reads tensors by name.
func TensorSamples(n int) ([]sdk.TensorSpec, []sdk.LoadedSample) {
	names := []string{"input_ids", "input_mask", "segment_ids"}
	inputs := make([]sdk.TensorSpec, len(names))
	for k, name := range names {
		inputs[k] = sdk.TensorSpec{Name: name, DType: abi.Int32, Shape: []int{abi.Varies}}
	}
	samples := make([]sdk.LoadedSample, n)
	for i := range samples {
		l := 1 + (i*7)%24
		s := sdk.LoadedSample{Index: uint64(i), Data: make([]byte, 0, 4*l*len(names))}
		for k := range names {
			for j := range l {
				s.Data = binary.LittleEndian.AppendUint32(s.Data, uint32(i<<16|k<<8|j))
			}
		}
		for k, name := range names {
			d := s.Data[4*l*k : 4*l*(k+1) : 4*l*(k+1)]
			s.Tensors = append(s.Tensors, sdk.Tensor{Name: name, DType: abi.Int32, Shape: []int{l}, Data: d})
		}
		samples[i] = s
	}
	return inputs, samples
}

// cloneSample copies a sample's bytes and tensors.
func cloneSample(s sdk.LoadedSample) sdk.LoadedSample {
	c := sdk.LoadedSample{Index: s.Index, Data: bytes.Clone(s.Data)}
	for _, t := range s.Tensors {
		t.Data, t.Shape = bytes.Clone(t.Data), slices.Clone(t.Shape)
		c.Tensors = append(c.Tensors, t)
	}
	return c
}
