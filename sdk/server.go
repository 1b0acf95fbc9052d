package sdk

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// Server is the plugin side of ABI v1 for one [Backend], without a
// transport: it checks the order of calls, keeps the loaded samples,
// derives the capabilities, recovers panics and turns errors into status
// codes, and runs the timed part of a run in a [Session]. [Serve] puts a
// Server behind gRPC and [Register] behind the WASM exports;
// sdk/sdktest drives one directly, so the conformance kit tests the code
// that ships. Plugin authors do not need it.
//
// Control methods (Info, Load, LoadSamples, UnloadSamples, Warmup, Close)
// are serialized; they never fail with a Go error, only with a status in
// their response.
type Server struct {
	b   Backend
	cfg ServerConfig
	log *slog.Logger

	mu       sync.Mutex // serializes control calls and guards the fields below
	info     Info
	inputs   []TensorSpec // the data set's schema, from Load
	infoResp *backendv1.InfoResponse
	loaded   bool
	closed   bool
	session  *Session

	// samplesMu is held for writing by (Un)LoadSamples and Close, for
	// reading by workers filling a query.
	samplesMu sync.RWMutex
	samples   sampleTable

	panics atomic.Int64 // panics recovered in Infer
}

// ServerConfig says what the transport behind a [Server] can do.
type ServerConfig struct {
	// Logger receives the SDK's own diagnostics and is handed to the
	// backend through every context ([Logger]). nil discards.
	Logger *slog.Logger
	// ModelPath: the backend can open files, so it advertises
	// [abi.CapModelPath].
	ModelPath bool
	// SharedArena: the transport can map the host's sample arena, so the
	// server advertises [abi.CapSharedArena].
	SharedArena bool
	// SharedMemoryDir is the one directory whose files (named with
	// [abi.SharedMemoryPrefix]) the transport maps as an arena or a ring
	// file, whatever path a request names; empty maps none.
	SharedMemoryDir string
	// SharedRing: the transport can attach a session's shared rings, so
	// the server advertises [abi.CapSharedRing].
	SharedRing bool
	// MaxUnreadBytes bounds the completions a session holds that its host
	// has not received (their records and outputs): past it the session
	// fails with [abi.ResourceExhausted], naming the cause. 0 is
	// [abi.DefaultMaxUnreadBytes]; [Serve] reads it from
	// [abi.MaxUnreadBytesEnv].
	MaxUnreadBytes int64
	// Inline runs Infer calls on the goroutine that issues, one at a time
	// (WASM guests), instead of on MaxInFlight workers.
	Inline bool
	// Observe, when set, sees every call the server makes into the
	// backend as it starts and as it ends: conformance kits check the
	// order, size and concurrency of the calls with it. It runs on the
	// calling goroutine, perhaps several at once, and must not block.
	Observe func(Call)
}

// Call is one call a [Server] makes into its backend, as
// [ServerConfig.Observe] sees it.
type Call struct {
	// Method is the backend's method: "Info", "Load", "SubmissionFacts",
	// "LoadSamples", "Units", "UnloadSamples", "Warmup", "Infer",
	// "Submit", "Flush" or "Close".
	Method string
	// Query is the batch of an Infer or Submit call; valid during the
	// Observe call only.
	Query *Query
	// Done is false as the call starts and true once it has ended: it
	// returned, or, for Submit, every sample of its batch was answered (or
	// the session ended).
	Done bool
}

// observe reports a call to the observer, if any.
func (s *Server) observe(c Call) {
	if s.cfg.Observe != nil {
		s.cfg.Observe(c)
	}
}

// guard runs one call into the backend, recovering a panic, and reports
// it to the observer.
func (s *Server) guard(op string, f func() error) error {
	s.observe(Call{Method: op})
	err := guard(op, f)
	s.observe(Call{Method: op, Done: true})
	return err
}

// loadedEntry is one loaded sample: its bytes, its tensors, its weight in
// a batch ([BatchSizer]) and what holds its bytes.
type loadedEntry struct {
	data    []byte
	tensors []Tensor
	units   int
	owner   *sampleOwner
}

// sampleOwner is the memory a group of samples lives in (a shared-memory
// mapping, a request buffer). It is released once no loaded sample
// refers to it and the backend no longer may.
type sampleOwner struct {
	refs    int
	release func()
}

// NewServer returns a Server for b.
func NewServer(b Backend, cfg ServerConfig) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{b: b, cfg: cfg, log: log}
}

// ctx returns ctx carrying the server's logger.
func (s *Server) ctx(ctx context.Context) context.Context { return WithLogger(ctx, s.log) }

// status converts an error into an ABI status.
func status(err error) *backendv1.Status {
	if err == nil {
		return &backendv1.Status{}
	}
	return &backendv1.Status{Code: uint32(CodeOf(err)), Message: err.Error()}
}

// errClosed is the status of every call after Close.
var errClosed = Errorf(abi.FailedPrecondition, "the backend was closed")

// Info calls the backend's Info (the first time only) and describes it: who it is, the ABI
// version, its capabilities. A host whose ABI major differs gets
// [abi.VersionMismatch].
func (s *Server) Info(req *backendv1.InfoRequest) *backendv1.InfoResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := req.GetHostAbiMajor(); m != 0 && m != abi.Major {
		return &backendv1.InfoResponse{AbiMajor: abi.Major, AbiMinor: abi.Minor, Status: status(Errorf(abi.VersionMismatch,
			"the host speaks ABI v%d, this plugin speaks v%d", m, abi.Major))}
	}
	if err := s.describe(); err != nil {
		return &backendv1.InfoResponse{AbiMajor: abi.Major, AbiMinor: abi.Minor, Status: status(err)}
	}
	if req.GetHostAbiMinor() < pathOptionMinor {
		return olderSchema(s.infoResp)
	}
	return s.infoResp
}

// pathOptionMinor is the ABI minor that has [abi.OptionPath].
const pathOptionMinor = 3

// olderSchema is an Info for a host of a minor before
// [pathOptionMinor], which would refuse a schema with a type it does not
// know: an option of type path is a string to it.
func olderSchema(r *backendv1.InfoResponse) *backendv1.InfoResponse {
	if !slices.ContainsFunc(r.GetOptions(), func(o *backendv1.OptionSpec) bool { return o.GetType() == string(abi.OptionPath) }) {
		return r
	}
	out := proto.CloneOf(r)
	for _, o := range out.GetOptions() {
		if o.GetType() == string(abi.OptionPath) {
			o.Type = string(abi.OptionString)
		}
	}
	return out
}

// describe calls Info once and builds the response; s.mu is held.
func (s *Server) describe() error {
	if s.infoResp != nil {
		return nil
	}
	var info Info
	if err := s.guard("Info", func() error { info = s.b.Info(); return nil }); err != nil {
		return err
	}
	if err := checkLimits(info); err != nil {
		return err
	}
	if info.Name == "" {
		return Errorf(abi.Internal, "backend Info has no Name")
	}
	schema := optionSchema(info.Options)
	if err := abi.CheckOptionSchema(schema); err != nil {
		return Errorf(abi.Internal, "backend %q: Info: %v", info.Name, err)
	}
	s.info = info
	r := &backendv1.InfoResponse{
		Status: &backendv1.Status{}, AbiMajor: abi.Major, AbiMinor: abi.Minor,
		Name: info.Name, Version: info.Version, Description: info.Description,
		Capabilities: uint64(s.capabilities()), MaxBatch: uint32(info.MaxBatch), MaxInFlight: uint32(info.MaxInFlight),
		Options: schema,
	}
	for _, d := range info.Devices {
		pd := &backendv1.Device{Id: int32(d.ID), Name: d.Name, Kind: d.Kind, MemoryBytes: d.MemoryBytes, Driver: d.Driver,
			PciBusId: d.PCIBusID, Uuid: d.UUID}
		if d.HasNUMANode {
			pd.NumaNode = proto.Int32(int32(d.NUMANode))
		}
		r.Devices = append(r.Devices, pd)
	}
	s.infoResp = r
	return nil
}

// capabilities derives the capability bits from the optional interfaces
// the backend implements and from what the transport can do.
func (s *Server) capabilities() abi.Capability {
	var c abi.Capability
	if _, ok := s.b.(Flusher); ok {
		c |= abi.CapFlush
	}
	if _, ok := s.b.(Warmer); ok {
		c |= abi.CapWarmup
	}
	if _, ok := s.b.(SampleLoader); ok {
		c |= abi.CapSampleLoader
	}
	if _, ok := s.b.(MemberReporter); ok {
		c |= abi.CapMembers
	}
	if s.info.FirstTokens {
		c |= abi.CapFirstToken
	}
	if s.cfg.ModelPath {
		c |= abi.CapModelPath
	}
	if s.cfg.SharedArena {
		c |= abi.CapSharedArena
	}
	if s.cfg.SharedRing {
		c |= abi.CapSharedRing
	}
	return c
}

// ready checks that the backend was described and, when wantLoaded, that
// a model is loaded; s.mu is held.
func (s *Server) ready(op string, wantLoaded bool) error {
	if s.closed {
		return errClosed
	}
	if err := s.describe(); err != nil {
		return err
	}
	if wantLoaded && !s.loaded {
		return Errorf(abi.FailedPrecondition, "%s before Load", op)
	}
	return nil
}

// Load loads the model, once.
func (s *Server) Load(ctx context.Context, req *backendv1.LoadRequest) *backendv1.LoadResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ready("Load", false); err != nil {
		return &backendv1.LoadResponse{Status: status(err)}
	}
	if s.loaded {
		return &backendv1.LoadResponse{Status: status(Errorf(abi.FailedPrecondition, "a model is already loaded"))}
	}
	opts := req.GetOptions()
	if opts == nil {
		opts = map[string]string{}
	}
	opts, err := applySchema(s.infoResp.GetOptions(), opts)
	if err != nil {
		return &backendv1.LoadResponse{Status: status(fmt.Errorf("load: %w", err))}
	}
	inputs, err := inputsFrom(req.GetInputs())
	if err != nil {
		return &backendv1.LoadResponse{Status: status(fmt.Errorf("load: %w", err))}
	}
	m := Model{Path: req.GetModelPath(), Bytes: req.GetModelBytes(), Options: opts, Run: runFrom(req.GetRun()), Inputs: inputs}
	err = s.guard("Load", func() error { return s.b.Load(s.ctx(ctx), m) })
	if err != nil {
		s.log.Error("load failed", "err", err)
		return &backendv1.LoadResponse{Status: status(fmt.Errorf("load: %w", err))}
	}
	s.loaded = true
	s.inputs = inputs
	if err := s.redescribe(); err != nil {
		s.log.Error("load: Info after Load", "err", err)
		return &backendv1.LoadResponse{Status: status(fmt.Errorf("load: %w", err))}
	}
	resp := &backendv1.LoadResponse{Status: &backendv1.Status{},
		MaxBatch: uint32(s.info.MaxBatch), MaxInFlight: uint32(s.info.MaxInFlight)}
	if r, ok := s.b.(SubmissionReporter); ok {
		var f SubmissionFacts
		if err := s.guard("SubmissionFacts", func() error { f = r.SubmissionFacts(); return nil }); err != nil {
			return &backendv1.LoadResponse{Status: status(fmt.Errorf("load: %w", err))}
		}
		if err := s.checkFacts(f); err != nil {
			return &backendv1.LoadResponse{Status: status(fmt.Errorf("load: %w", err))}
		}
		resp.Facts = f.proto()
	}
	return resp
}

// checkFacts rejects submission facts that name a device Info did not
// list, or one twice: the host would refuse them.
func (s *Server) checkFacts(f SubmissionFacts) error {
	seen := map[int]bool{}
	for _, id := range f.DevicesUsed {
		if !slices.ContainsFunc(s.info.Devices, func(d Device) bool { return d.ID == id }) {
			return Errorf(abi.Internal, "backend %q: SubmissionFacts: device %d is used but not in Info.Devices", s.info.Name, id)
		}
		if seen[id] {
			return Errorf(abi.Internal, "backend %q: SubmissionFacts: device %d is used twice", s.info.Name, id)
		}
		seen[id] = true
	}
	return nil
}

// redescribe calls Info again once the model is loaded: Load's options
// may have changed MaxBatch and MaxInFlight (a stream count, a batch
// size), which the session's workers and the host then follow. Nothing
// else of Info may change. s.mu is held.
func (s *Server) redescribe() error {
	var info Info
	if err := s.guard("Info", func() error { info = s.b.Info(); return nil }); err != nil {
		return err
	}
	if err := checkLimits(info); err != nil {
		return err
	}
	s.info.MaxBatch, s.info.MaxInFlight, s.info.BatchTimeout = info.MaxBatch, info.MaxInFlight, info.BatchTimeout
	r := proto.CloneOf(s.infoResp)
	r.MaxBatch, r.MaxInFlight = uint32(info.MaxBatch), uint32(info.MaxInFlight)
	s.infoResp = r
	return nil
}

// checkLimits rejects MaxBatch and MaxInFlight out of range.
func checkLimits(info Info) error {
	if info.MaxBatch < 0 || info.MaxInFlight < 0 || info.MaxBatch > math.MaxUint32 || info.MaxInFlight > math.MaxUint32 {
		return Errorf(abi.Internal, "backend %q: Info has MaxBatch %d and MaxInFlight %d: want 0 or more",
			info.Name, info.MaxBatch, info.MaxInFlight)
	}
	if info.BatchTimeout < 0 {
		return Errorf(abi.Internal, "backend %q: Info has BatchTimeout %v: want 0 or more", info.Name, info.BatchTimeout)
	}
	return nil
}

// LoadSamples makes samples resident: the server keeps their bytes for
// Infer's [Sample.Data], and a [SampleLoader] backend gets them too. The
// samples' Data must stay valid until release is called: once they are
// all unloaded (or replaced, or the server closed) and the backend was
// told. release may be nil.
func (s *Server) LoadSamples(ctx context.Context, samples []LoadedSample, release func()) *backendv1.LoadSamplesResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	owner := &sampleOwner{release: release}
	if err := s.ready("LoadSamples", true); err != nil {
		owner.releaseIfUnused()
		return &backendv1.LoadSamplesResponse{Status: status(err)}
	}
	s.idle()
	if err := s.resolveTensors(samples); err != nil {
		owner.releaseIfUnused()
		return &backendv1.LoadSamplesResponse{Status: status(fmt.Errorf("load samples: %w", err))}
	}
	units, err := s.units(samples)
	if err != nil {
		owner.releaseIfUnused()
		return &backendv1.LoadSamplesResponse{Status: status(fmt.Errorf("load samples: %w", err))}
	}
	if sl, ok := s.b.(SampleLoader); ok {
		if err := s.guard("LoadSamples", func() error { return sl.LoadSamples(s.ctx(ctx), samples) }); err != nil {
			owner.releaseIfUnused()
			return &backendv1.LoadSamplesResponse{Status: status(fmt.Errorf("load samples: %w", err))}
		}
	}
	s.samplesMu.Lock()
	for i, smp := range samples {
		owner.refs++
		e := loadedEntry{data: smp.Data, tensors: smp.Tensors, owner: owner, units: 1}
		if units != nil {
			e.units = units[i]
		}
		if old, ok := s.samples.put(smp.Index, e); ok {
			old.owner.drop()
		}
	}
	s.samplesMu.Unlock()
	owner.releaseIfUnused()
	return &backendv1.LoadSamplesResponse{Status: &backendv1.Status{}}
}

// UnloadSamples releases samples; indices not loaded are ignored.
func (s *Server) UnloadSamples(ctx context.Context, req *backendv1.UnloadSamplesRequest) *backendv1.UnloadSamplesResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ready("UnloadSamples", true); err != nil {
		return &backendv1.UnloadSamplesResponse{Status: status(err)}
	}
	s.idle()
	indices := req.GetIndices()
	if sl, ok := s.b.(SampleLoader); ok {
		if err := s.guard("UnloadSamples", func() error { return sl.UnloadSamples(s.ctx(ctx), indices) }); err != nil {
			return &backendv1.UnloadSamplesResponse{Status: status(fmt.Errorf("unload samples: %w", err))}
		}
	}
	s.samplesMu.Lock()
	for _, i := range indices {
		if e, ok := s.samples.remove(i); ok {
			e.owner.drop()
		}
	}
	s.samplesMu.Unlock()
	return &backendv1.UnloadSamplesResponse{Status: &backendv1.Status{}}
}

// resolveTensors fills each sample's Tensors from the references its
// transport found, checked against the inputs; tensors given directly are
// checked. Without inputs, samples have no tensors. s.mu is held.
func (s *Server) resolveTensors(samples []LoadedSample) error {
	for i := range samples {
		smp := &samples[i]
		switch {
		case len(s.inputs) == 0:
			smp.Tensors = nil
		case smp.refs != nil:
			ts, err := resolveTensors(s.inputs, smp.refs, smp.Data)
			if err != nil {
				return Errorf(abi.InvalidArgument, "sample index %d: %v", smp.Index, err)
			}
			smp.Tensors, smp.refs = ts, nil
		default:
			if err := checkTensors(s.inputs, smp.Tensors); err != nil {
				return Errorf(abi.InvalidArgument, "sample index %d: %v", smp.Index, err)
			}
		}
	}
	return nil
}

// units asks a BatchSizer what each sample weighs in a batch; nil when
// the backend is none. s.mu is held.
func (s *Server) units(samples []LoadedSample) ([]int, error) {
	bs, ok := s.b.(BatchSizer)
	if !ok {
		return nil, nil
	}
	out := make([]int, len(samples))
	err := s.guard("Units", func() error {
		for i, smp := range samples {
			out[i] = max(1, bs.Units(smp))
		}
		return nil
	})
	return out, err
}

func (o *sampleOwner) drop() {
	o.refs--
	o.releaseIfUnused()
}

func (o *sampleOwner) releaseIfUnused() {
	if o.refs == 0 && o.release != nil {
		o.release()
		o.release = nil
	}
}

// Warmup runs the backend's warm-up, if it is a [Warmer].
func (s *Server) Warmup(ctx context.Context) *backendv1.WarmupResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ready("Warmup", true); err != nil {
		return &backendv1.WarmupResponse{Status: status(err)}
	}
	s.idle()
	w, ok := s.b.(Warmer)
	if !ok {
		return &backendv1.WarmupResponse{Status: &backendv1.Status{}}
	}
	if err := s.guard("Warmup", func() error { return w.Warmup(s.ctx(ctx)) }); err != nil {
		return &backendv1.WarmupResponse{Status: status(fmt.Errorf("warmup: %w", err))}
	}
	return &backendv1.WarmupResponse{Status: &backendv1.Status{}}
}

// OpenSession starts the timed part of a run after Load. One session is
// open at a time; out receives its results. ctx bounds the session: the
// Infer calls get a context derived from it, which Abort also cancels.
func (s *Server) OpenSession(ctx context.Context, out SessionOutput) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ready("a session", true); err != nil {
		return nil, err
	}
	if s.session != nil {
		return nil, Errorf(abi.FailedPrecondition, "a session is already open")
	}
	s.session = newSession(s.ctx(ctx), s, out, s.cfg.Inline)
	return s.session, nil
}

// idle waits until the open session, if any, runs no Infer or Flush call
// and has nothing queued: the backend's other methods never run
// concurrently with Infer. The host issues nothing during control calls,
// so the wait is for calls already on their way out; s.mu is held.
func (s *Server) idle() {
	if s.session != nil {
		s.session.idle()
	}
}

// sessionEnded forgets a session that ended.
func (s *Server) sessionEnded(sess *Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == sess {
		s.session = nil
	}
}

// Close aborts an open session, closes the backend once and releases
// every sample. Later calls answer OK and do nothing.
func (s *Server) Close() *backendv1.CloseResponse {
	s.mu.Lock()
	sess := s.session
	s.mu.Unlock()
	if sess != nil {
		s.log.Warn("closing with a session open: aborting it")
		sess.Abort()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return &backendv1.CloseResponse{Status: &backendv1.Status{}}
	}
	s.closed = true
	err := s.guard("Close", s.b.Close)
	s.samplesMu.Lock()
	s.samples.removeAll(func(e loadedEntry) { e.owner.drop() })
	s.samplesMu.Unlock()
	if err != nil {
		return &backendv1.CloseResponse{Status: status(fmt.Errorf("close: %w", err))}
	}
	return &backendv1.CloseResponse{Status: &backendv1.Status{}}
}
