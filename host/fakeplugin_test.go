package host

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// The test binary doubles as a subprocess plugin (go-plugin's
// helper-process pattern): with fakePluginEnv set, TestMain serves a fake
// backend instead of running tests. The fake echoes each sample's loaded
// bytes (or its 8-byte index), and misbehaves as its mode says.
const fakePluginEnv = "MLPERF_HOST_TEST_PLUGIN"

// Fake plugin modes.
const (
	fakeEcho         = "echo"
	fakeInline       = "inline"        // no shared arena capability
	fakeCrash        = "crash"         // exit(3) at the first issue
	fakePanic        = "panic"         // unrecovered panic at the first issue
	fakeStall        = "stall"         // never complete
	fakeMalformed    = "malformed"     // a completions frame with a partial record
	fakeUnknownID    = "unknown"       // complete ids never issued
	fakeDuplicate    = "duplicate"     // complete every id twice
	fakeSessionError = "session-error" // report a fatal error on the session
	fakeV2           = "v2"            // serve ABI major 2 only
	fakeStdout       = "stdout"        // print before the handshake
	fakeDieAtStart   = "die-at-start"  // exit(1) before the handshake
	fakeSlowStart    = "slow-start"    // no handshake for 10 s
	fakeLogs         = "logs"          // log through hclog, plus lines go-plugin would choke on
	fakePingStall    = "ping-stall"    // never answer pings
	fakeServe        = "serve"         // serve mode: print the reattach config, serve until killed
	fakeOrphan       = "orphan"        // start a helper in its own session that keeps stdout and stderr open
	fakeSleeper      = "sleeper"       // the orphan's helper: sleep a while
	fakeCloseHang    = "close-hang"    // never answer Close
	fakeHelper       = "helper"        // start a long-lived helper in its own session, marked by fakeHelperEnv
	fakeLongSleeper  = "long-sleeper"  // the helper: sleep a minute
)

// fakeHelperEnv marks the helper of fakeHelper with the test's token, by
// which the test finds it in /proc.
const fakeHelperEnv = "MLPERF_HOST_TEST_HELPER"

// fakeRefusedSample is the index of a sample the fake's LoadSamples
// refuses.
const fakeRefusedSample = 999

// fakeServeToken is the token of the fake plugin's serve mode.
const fakeServeToken = "0123456789abcdef0123456789abcdef-fake"

func serveFakePlugin(mode string) {
	srv := &fakeServer{mode: mode, samples: map[uint64][]byte{}}
	logger := hclog.New(&hclog.LoggerOptions{Output: os.Stderr, JSONFormat: true, Level: hclog.Trace})
	major := abi.Major
	switch mode {
	case fakeSleeper:
		time.Sleep(5 * time.Second)
		os.Exit(0)
	case fakeOrphan:
		startOrphan()
	case fakeHelper:
		startHelper()
	case fakeLongSleeper:
		time.Sleep(time.Minute)
		os.Exit(0)
	case fakeV2:
		major = 2
	case fakeStdout:
		fmt.Println("starting fake plugin...")
	case fakeDieAtStart:
		fmt.Fprintln(os.Stderr, "cannot open /dev/accel0: no such device")
		os.Exit(1)
	case fakeSlowStart:
		time.Sleep(10 * time.Second)
	case fakeLogs:
		logger.Debug("loading runtime", "threads", 4)
		logger.Warn("low memory", "free_mib", 12)
		fmt.Fprintln(os.Stderr, `{"@message": 5, "@level": []}`)
		fmt.Fprintln(os.Stderr, "a plain line")
	}
	cfg := &plugin.ServeConfig{
		HandshakeConfig:  plugin.HandshakeConfig{ProtocolVersion: uint(major), MagicCookieKey: abi.MagicCookieKey, MagicCookieValue: abi.MagicCookieValue},
		VersionedPlugins: map[int]plugin.PluginSet{major: {abi.PluginName: &fakePlugin{srv: srv}}},
		GRPCServer:       plugin.DefaultGRPCServer,
		Logger:           logger,
	}
	if mode == fakeServe {
		// As the SDK's serve mode: a private socket directory, a token.
		dir, err := os.MkdirTemp("", "fake-serve")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(dir)
		if err := os.Setenv(plugin.EnvUnixSocketDir, dir); err != nil {
			panic(err)
		}
		cfg.GRPCServer = func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.MaxRecvMsgSize(DefaultMaxMessageBytes), grpc.MaxSendMsgSize(DefaultMaxMessageBytes)) // as the SDK's
			return plugin.DefaultGRPCServer(append(opts, backendv1grpc.TokenServerOptions(fakeServeToken)...))
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		ch := make(chan *plugin.ReattachConfig, 1)
		cfg.Test = &plugin.ServeTestConfig{Context: ctx, ReattachConfigCh: ch}
		go func() {
			rc := <-ch
			b, _ := json.Marshal(ReattachConfig{Plugin: "fake", ABIMajor: rc.ProtocolVersion, Pid: rc.Pid,
				Network: rc.Addr.Network(), Address: rc.Addr.String(), Token: fakeServeToken})
			fmt.Println(string(b))
		}()
	}
	plugin.Serve(cfg)
	os.Exit(0)
}

type fakePlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *fakeServer
}

func (p *fakePlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	backendv1grpc.RegisterBackendServer(s, p.srv)
	return nil
}

func (p *fakePlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, nil
}

type fakeServer struct {
	backendv1grpc.UnimplementedBackendServer
	mode    string
	mu      sync.Mutex
	samples map[uint64][]byte
	arenas  int
}

func ok() *backendv1.Status { return &backendv1.Status{} }

func (s *fakeServer) Info(_ context.Context, req *backendv1.InfoRequest) (*backendv1.InfoResponse, error) {
	caps := abi.CapFlush | abi.CapWarmup | abi.CapModelPath | abi.CapFirstToken
	if s.mode != fakeInline {
		caps |= abi.CapSharedArena
	}
	resp := &backendv1.InfoResponse{Status: ok(), AbiMajor: abi.Major, AbiMinor: abi.Minor, Name: "fake", Version: "1.0",
		Capabilities: uint64(caps), MaxInFlight: 2,
		Devices: []*backendv1.Device{{Id: 0, Name: "fake accelerator", Kind: "gpu", MemoryBytes: 1 << 30}}}
	if s.mode == fakeServe { // a served plugin's path and string options
		resp.Options = []*backendv1.OptionSpec{{Name: "library", Type: string(abi.OptionPath)}, {Name: "note", Type: string(abi.OptionString)}}
	}
	return resp, nil
}

func (s *fakeServer) Load(_ context.Context, req *backendv1.LoadRequest) (*backendv1.LoadResponse, error) {
	model := req.GetModelBytes()
	if p := req.GetModelPath(); p != "" {
		var err error
		if model, err = os.ReadFile(p); err != nil {
			return &backendv1.LoadResponse{Status: &backendv1.Status{Code: uint32(abi.NotFound), Message: err.Error()}}, nil
		}
	}
	if string(model) == "fail" {
		return &backendv1.LoadResponse{Status: &backendv1.Status{Code: uint32(abi.InvalidArgument), Message: "model rejected"}}, nil
	}
	// What the plugin was given, for serve's tests.
	given := fmt.Sprintf("model=%s library=%s note=%s", req.GetModelPath(), req.GetOptions()["library"], req.GetOptions()["note"])
	return &backendv1.LoadResponse{Status: ok(), Facts: &backendv1.SubmissionFacts{Framework: given}}, nil
}

func (s *fakeServer) LoadSamples(_ context.Context, req *backendv1.LoadSamplesRequest) (*backendv1.LoadSamplesResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var arena []byte
	if a := req.GetArena(); a != nil {
		var err error
		if arena, err = os.ReadFile(a.GetPath()); err != nil || uint64(len(arena)) != a.GetSize() {
			return &backendv1.LoadSamplesResponse{Status: &backendv1.Status{Code: uint32(abi.InvalidArgument), Message: fmt.Sprint("arena: ", err)}}, nil
		}
		s.arenas++
	}
	for _, r := range req.GetSamples() {
		if r.GetIndex() == fakeRefusedSample {
			return &backendv1.LoadSamplesResponse{Status: &backendv1.Status{Code: uint32(abi.InvalidArgument), Message: "sample 999: not an image"}}, nil
		}
		if r.GetData() != nil || arena == nil {
			s.samples[r.GetIndex()] = r.GetData()
		} else {
			s.samples[r.GetIndex()] = arena[r.GetOffset() : r.GetOffset()+r.GetLength()]
		}
	}
	return &backendv1.LoadSamplesResponse{Status: ok()}, nil
}

func (s *fakeServer) UnloadSamples(_ context.Context, req *backendv1.UnloadSamplesRequest) (*backendv1.UnloadSamplesResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, i := range req.GetIndices() {
		delete(s.samples, i)
	}
	return &backendv1.UnloadSamplesResponse{Status: ok()}, nil
}

func (s *fakeServer) Warmup(context.Context, *backendv1.WarmupRequest) (*backendv1.WarmupResponse, error) {
	return &backendv1.WarmupResponse{Status: ok()}, nil
}

func (s *fakeServer) Ping(ctx context.Context, req *backendv1.PingRequest) (*backendv1.PingResponse, error) {
	if s.mode == fakePingStall {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &backendv1.PingResponse{Nonce: req.GetNonce()}, nil
}

func (s *fakeServer) Close(ctx context.Context, _ *backendv1.CloseRequest) (*backendv1.CloseResponse, error) {
	if s.mode == fakeCloseHang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &backendv1.CloseResponse{Status: ok()}, nil
}

func (s *fakeServer) Session(stream backendv1grpc.Backend_SessionServer) error {
	for {
		msg, err := stream.Recv()
		if err != nil {
			return nil // the host closed its side
		}
		if msg.GetFlush() != nil {
			if err := stream.Send(&backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Flushed{Flushed: &backendv1.FlushDone{Status: ok()}}}); err != nil {
				return err
			}
			continue
		}
		if len(msg.GetIssue().GetSampleData()) > 0 {
			return errors.New("fake plugin: an issue carried sample data: serve passes it as LoadSamples")
		}
		recs, err := abi.ParseIssueRecords(msg.GetIssue().GetSamples())
		if err != nil {
			return err
		}
		if err := s.answer(stream, recs); err != nil {
			return err
		}
	}
}

func (s *fakeServer) answer(stream backendv1grpc.Backend_SessionServer, rs abi.IssueRecords) error {
	switch s.mode {
	case fakeCrash:
		// go-plugin's Serve redirected os.Stderr through an asynchronous
		// gRPC stream that dies with the process: last words go to the
		// real stderr, as a runtime's crash report does.
		fmt.Fprintln(os.NewFile(2, "stderr"), "device lost, giving up")
		os.Exit(3)
	case fakePanic:
		panic("kaboom")
	case fakeStall:
		return nil
	case fakeSessionError:
		return stream.Send(&backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Error{Error: &backendv1.SessionError{
			Status: &backendv1.Status{Code: uint32(abi.Unavailable), Message: "device lost"}}}})
	case fakeMalformed:
		return stream.Send(&backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Completions{Completions: &backendv1.Completions{
			Records: make([]byte, abi.CompletionRecordSize-1)}}})
	}
	var recs, data, frecs, fdata []byte
	s.mu.Lock()
	for i := range rs.Len() {
		r := rs.At(i)
		out, loaded := s.samples[r.Index]
		if !loaded {
			out = binary.LittleEndian.AppendUint64(nil, r.Index)
		}
		if r.Flags&abi.FlagWantOutput == 0 {
			out = nil
		}
		id := r.ID
		if s.mode == fakeUnknownID {
			id += 1000000
		}
		if r.Flags&abi.FlagWantOutput != 0 { // first tokens only where output is wanted
			frecs, fdata = abi.AppendCompletion(frecs, fdata, id, abi.OK, out[:min(1, len(out))], 1)
		}
		recs, data = abi.AppendCompletion(recs, data, id, abi.OK, out, 3)
		if s.mode == fakeDuplicate {
			recs, data = abi.AppendCompletion(recs, data, id, abi.OK, out, 3)
		}
	}
	s.mu.Unlock()
	if len(frecs) > 0 {
		if err := stream.Send(&backendv1.PluginMessage{Kind: &backendv1.PluginMessage_FirstTokens{FirstTokens: &backendv1.Completions{Records: frecs, Data: fdata}}}); err != nil {
			return err
		}
	}
	return stream.Send(&backendv1.PluginMessage{Kind: &backendv1.PluginMessage_Completions{Completions: &backendv1.Completions{Records: recs, Data: data}}})
}
