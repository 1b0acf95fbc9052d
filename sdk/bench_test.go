//go:build !wasip1

package sdk

import (
	"context"
	"net"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// nullBackend completes every sample at once, with no data unless the
// host wants the output, then with the sample's own bytes: what is left
// is the SDK's own cost.
type nullBackend struct{ maxBatch, maxInFlight int }

var _ Backend = (*nullBackend)(nil)

func (n *nullBackend) Info() Info {
	return Info{Name: "null", Version: "0", MaxBatch: n.maxBatch, MaxInFlight: n.maxInFlight}
}
func (*nullBackend) Load(context.Context, Model) error { return nil }
func (*nullBackend) Close() error                      { return nil }
func (*nullBackend) Infer(_ context.Context, q Query, c Completer) error {
	for _, s := range q.Samples {
		var out []byte
		if s.WantOutput {
			out = s.Data
		}
		c.Complete(s.ID, out, 0)
	}
	return nil
}

// benchSamples is how many distinct sample indices the benchmarks load,
// and benchSampleBytes their size (a Fashion-MNIST image, as the
// end-to-end runs use).
const (
	benchSamples     = 1024
	benchSampleBytes = 784
)

// benchShapes are the query sizes: Server-style single samples and
// Offline-style large batches, with the echo example's limits (256 per
// call, 2 calls in flight) and with none; output: every sample's output
// is wanted (accuracy mode), so each completion carries its 784 bytes.
var benchShapes = []struct {
	name                         string
	batch, maxBatch, maxInFlight int
	output                       bool
}{
	{name: "batch=1", batch: 1, maxBatch: 256, maxInFlight: 2},
	{name: "batch=4096", batch: 4096, maxBatch: 256, maxInFlight: 2},
	{name: "batch=4096/unsplit", batch: 4096, maxBatch: 0, maxInFlight: 1},
	{name: "batch=4096/output", batch: 4096, maxBatch: 256, maxInFlight: 2, output: true},
}

// issueRecords packs a query of n samples. Every query of a benchmark
// reuses the ids: each completes before the next is issued.
func issueRecords(n int, output bool) []byte {
	var flags abi.IssueFlag
	if output {
		flags = abi.FlagWantOutput
	}
	recs := make([]byte, 0, n*abi.IssueRecordSize)
	for i := range n {
		recs = abi.AppendIssueRecord(recs, abi.IssueRecord{ID: uint64(i) + 1, Index: uint64(i % benchSamples), Flags: flags})
	}
	return recs
}

// loadBench returns a server with a loaded model and benchSamples
// samples.
func loadBench(b testing.TB, be Backend, cfg ServerConfig) *Server {
	b.Helper()
	srv := NewServer(be, cfg)
	b.Cleanup(func() { srv.Close() })
	require.Zero(b, srv.Load(b.Context(), &backendv1.LoadRequest{}).GetStatus().GetCode())
	samples := make([]LoadedSample, benchSamples)
	for i := range samples {
		samples[i] = LoadedSample{Index: uint64(i), Data: make([]byte, benchSampleBytes)}
	}
	require.Zero(b, srv.LoadSamples(b.Context(), samples, nil).GetStatus().GetCode())
	return srv
}

// countingSender is the sink at the end of the outbox: it counts the
// completions of the messages it is sent and says when want were.
type countingSender struct {
	got, want, msgs int
	done            chan struct{}
}

func (c *countingSender) Send(m *backendv1.PluginMessage) error {
	c.msgs++
	c.got += len(m.GetCompletions().GetRecords()) / abi.CompletionRecordSize
	if c.got >= c.want {
		c.got -= c.want
		c.done <- struct{}{}
	}
	return nil
}

// BenchmarkSession measures the plugin side of the subprocess hot path
// without gRPC: Session.Issue of one packed query, the dispatcher, Infer
// on the workers, the completer, the outbox and its sender, until every
// sample of the query reached the sender. One iteration is one query.
func BenchmarkSession(b *testing.B) {
	for _, sh := range benchShapes {
		b.Run(sh.name, func(b *testing.B) {
			srv := loadBench(b, &nullBackend{maxBatch: sh.maxBatch, maxInFlight: sh.maxInFlight}, ServerConfig{})
			out := newOutbox(MaxMessageBytes, 0)
			sink := &countingSender{want: sh.batch, done: make(chan struct{}, 1)}
			sess, err := srv.OpenSession(b.Context(), out)
			require.NoError(b, err)
			ctx, cancel := context.WithCancel(b.Context())
			sent := make(chan error, 1)
			go func() { sent <- out.run(ctx, sink) }()
			defer func() {
				sess.End()
				out.close()
				require.NoError(b, <-sent)
				cancel()
			}()
			issueLoop(b, sess, issueRecords(sh.batch, sh.output), sh.batch, func() { <-sink.done })
			b.ReportMetric(float64(sink.msgs)/float64(b.N), "msgs/op")
		})
	}
}

// BenchmarkSessionInline is the same path in inline mode (a WASM guest's
// session, without its export layer) into a sink that does nothing.
func BenchmarkSessionInline(b *testing.B) {
	for _, sh := range benchShapes {
		b.Run(sh.name, func(b *testing.B) {
			srv := loadBench(b, &nullBackend{maxBatch: sh.maxBatch, maxInFlight: sh.maxInFlight}, ServerConfig{Inline: true})
			sess, err := srv.OpenSession(b.Context(), discardOutput{})
			require.NoError(b, err)
			defer sess.End()
			issueLoop(b, sess, issueRecords(sh.batch, sh.output), sh.batch, func() {})
		})
	}
}

// issueLoop issues recs, n samples, once per iteration and waits for
// their completions, then reports per sample.
func issueLoop(b *testing.B, sess *Session, recs []byte, n int, wait func()) {
	b.Helper()
	b.ReportAllocs()
	ps := startPerSample(b, n)
	for b.Loop() {
		if err := sess.Issue(recs); err != nil {
			b.Fatal(err)
		}
		wait()
	}
	ps.report()
}

// discardOutput is a SessionOutput that drops everything.
type discardOutput struct{}

func (discardOutput) Complete(uint64, abi.Code, []byte, int64) {}
func (discardOutput) FirstToken(uint64, []byte)                {}
func (discardOutput) Flushed(abi.Code, string)                 {}
func (discardOutput) Violation(uint64, error)                  {}

// BenchmarkGRPC measures the SDK's gRPC service end to end in one
// process: a client of abi/backendv1grpc sends one Issue message over an
// in-memory connection (bufconn) and receives completion messages until
// every sample of it came back. It adds the gRPC framing, the HTTP/2
// flow control and protobuf (un)marshaling on both sides to
// BenchmarkSession; a real host adds a socket and a process switch.
func BenchmarkGRPC(b *testing.B) {
	for _, sh := range benchShapes {
		b.Run(sh.name, func(b *testing.B) {
			stream := openBenchStream(b, &nullBackend{maxBatch: sh.maxBatch, maxInFlight: sh.maxInFlight})
			msg := &backendv1.HostMessage{Kind: &backendv1.HostMessage_Issue{Issue: &backendv1.Issue{Samples: issueRecords(sh.batch, sh.output)}}}
			var in backendv1.PluginMessage
			msgs := 0
			b.ReportAllocs()
			ps := startPerSample(b, sh.batch)
			for b.Loop() {
				if err := stream.Send(msg); err != nil {
					b.Fatal(err)
				}
				for got := 0; got < sh.batch; {
					if err := stream.RecvMsg(&in); err != nil {
						b.Fatal(err)
					}
					got += len(in.GetCompletions().GetRecords()) / abi.CompletionRecordSize
					msgs++
				}
			}
			ps.report()
			b.ReportMetric(float64(msgs)/float64(b.N), "msgs/op")
		})
	}
}

// openBenchStream serves be over bufconn, loads it and opens a session.
// Cleanup closes the stream and waits for the server to stop.
func openBenchStream(b testing.TB, be Backend) backendv1grpc.Backend_SessionClient {
	b.Helper()
	return openSessionStream(b, loadBench(b, be, ServerConfig{}), grpc.WithInitialWindowSize(4<<20), grpc.WithInitialConnWindowSize(16<<20))
}

// openSessionStream serves srv over bufconn and opens a session with the
// client's options. Cleanup closes the stream and waits for the server to
// stop.
func openSessionStream(b testing.TB, srv *Server, opts ...grpc.DialOption) backendv1grpc.Backend_SessionClient {
	b.Helper()
	lis := bufconn.Listen(1 << 20)
	gs := newGRPCServer(nil)
	backendv1grpc.RegisterBackendServer(gs, newGRPCBackend(srv))
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///bufconn", append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
	}, opts...)...)
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(b.Context())
	stream, err := backendv1grpc.NewBackendClient(conn).Session(ctx)
	require.NoError(b, err)
	b.Cleanup(func() {
		require.NoError(b, stream.CloseSend())
		cancel()
		require.NoError(b, conn.Close())
		gs.Stop()
		require.NoError(b, <-served)
	})
	return stream
}

// perSample reports the time and heap allocations per sample of the
// benchmark's iterations, n samples each. Call start right before the
// loop and report right after it.
type perSample struct {
	b      *testing.B
	n      int
	before runtime.MemStats
}

func startPerSample(b *testing.B, n int) *perSample {
	p := &perSample{b: b, n: n}
	runtime.ReadMemStats(&p.before)
	return p
}

func (p *perSample) report() {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	samples := float64(p.b.N) * float64(p.n)
	p.b.ReportMetric(float64(p.b.Elapsed().Nanoseconds())/samples, "ns/sample")
	p.b.ReportMetric(float64(after.Mallocs-p.before.Mallocs)/samples, "allocs/sample")
}
