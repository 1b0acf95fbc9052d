package echo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// process drives the echo binary as a go-plugin subprocess, the way the
// host does: handshake with automatic mutual TLS, the Backend service,
// one Session stream.
type process struct {
	*collector
	client *plugin.Client
	rpc    backendv1grpc.BackendClient
	stream backendv1grpc.Backend_SessionClient
	cancel context.CancelFunc
	recv   chan struct{}
	// arena: send samples through a shared-memory file (else inline).
	arena  bool
	dir    string
	errOut lockedBuffer
}

var _ driver = (*process)(nil)

// hostPlugin is the client side of the go-plugin plugin.
type hostPlugin struct{ plugin.NetRPCUnsupportedPlugin }

func (hostPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the test host serves nothing")
}

func (hostPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return backendv1grpc.NewBackendClient(c), nil
}

func newProcess(t *testing.T, arena bool, env ...string) *process {
	bin, _ := built(t)
	d := &process{collector: newCollector(), arena: arena, dir: t.TempDir()}
	cmd := exec.Command(bin)
	// As a host does: its shared-memory directory named to the plugin.
	cmd.Env = append(os.Environ(), abi.SharedMemoryDirEnv+"="+d.dir)
	cmd.Env = append(cmd.Env, env...)
	d.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  plugin.HandshakeConfig{ProtocolVersion: abi.ProtocolVersion, MagicCookieKey: abi.MagicCookieKey, MagicCookieValue: abi.MagicCookieValue},
		VersionedPlugins: map[int]plugin.PluginSet{abi.Major: {abi.PluginName: hostPlugin{}}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Stderr:           io.MultiWriter(t.Output(), &d.errOut),
		Logger:           hclog.New(&hclog.LoggerOptions{Output: t.Output(), Level: hclog.Warn}),
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(sdk.MaxMessageBytes), grpc.MaxCallSendMsgSize(sdk.MaxMessageBytes))},
	})
	t.Cleanup(func() {
		if d.cancel != nil {
			d.cancel()
		}
		d.client.Kill()
	})
	cp, err := d.client.Client()
	require.NoError(t, err, "start the echo plugin")
	raw, err := cp.Dispense(abi.PluginName)
	require.NoError(t, err)
	d.rpc = raw.(backendv1grpc.BackendClient)
	return d
}

func (d *process) Info(t *testing.T) *backendv1.InfoResponse {
	var caps abi.HostCapability
	if d.arena {
		caps |= abi.HostCapSharedArena
	}
	resp, err := d.rpc.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor, HostCapabilities: uint64(caps)})
	require.NoError(t, err)
	return resp
}

func (d *process) Load(t *testing.T, req *backendv1.LoadRequest) *backendv1.Status {
	resp, err := d.rpc.Load(t.Context(), req)
	require.NoError(t, err)
	return resp.GetStatus()
}

func (d *process) LoadSamples(t *testing.T, samples []sdk.LoadedSample) *backendv1.Status {
	req := &backendv1.LoadSamplesRequest{}
	if d.arena {
		f, err := os.CreateTemp(d.dir, abi.SharedMemoryPrefix+"arena-*")
		require.NoError(t, err)
		var off uint64
		for _, s := range samples {
			_, err := f.Write(s.Data)
			require.NoError(t, err)
			req.Samples = append(req.Samples, &backendv1.SampleRef{Index: s.Index, Offset: off, Length: uint64(len(s.Data))})
			off += uint64(len(s.Data))
		}
		require.NoError(t, f.Close())
		req.Arena = &backendv1.Arena{Path: f.Name(), Size: off}
	} else {
		for _, s := range samples {
			req.Samples = append(req.Samples, &backendv1.SampleRef{Index: s.Index, Length: uint64(len(s.Data)), Data: s.Data})
		}
	}
	resp, err := d.rpc.LoadSamples(t.Context(), req)
	require.NoError(t, err)
	return resp.GetStatus()
}

func (d *process) Warmup(t *testing.T) *backendv1.Status {
	resp, err := d.rpc.Warmup(t.Context(), &backendv1.WarmupRequest{})
	require.NoError(t, err)
	return resp.GetStatus()
}

// session opens the Session stream and its receiver.
func (d *process) session(t *testing.T) backendv1grpc.Backend_SessionClient {
	if d.stream != nil {
		return d.stream
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	stream, err := d.rpc.Session(ctx)
	require.NoError(t, err)
	d.stream, d.cancel, d.recv = stream, cancel, make(chan struct{})
	go d.receive()
	return stream
}

func (d *process) receive() {
	defer close(d.recv)
	for {
		msg, err := d.stream.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				d.event(fmt.Sprintf("host: session ended: %v", err), true)
			}
			return
		}
		switch k := msg.GetKind().(type) {
		case *backendv1.PluginMessage_Completions:
			cs, err := abi.ParseCompletions(k.Completions.GetRecords(), k.Completions.GetData())
			if err != nil {
				d.event("host: "+err.Error(), true)
				return
			}
			for c := range cs.All {
				d.complete(c.ID, c.Status, c.Data, c.NTokens)
			}
		case *backendv1.PluginMessage_FirstTokens:
			cs, err := abi.ParseCompletions(k.FirstTokens.GetRecords(), k.FirstTokens.GetData())
			if err != nil {
				d.event("host: "+err.Error(), true)
				return
			}
			for c := range cs.All {
				d.firstToken(c.ID)
			}
		case *backendv1.PluginMessage_Flushed:
			d.flushed(k.Flushed.GetStatus())
		case *backendv1.PluginMessage_Error:
			d.event(k.Error.GetStatus().GetMessage(), true)
		}
	}
}

func (d *process) Issue(t *testing.T, queries ...[]abi.IssueRecord) []completion {
	s := d.session(t)
	for _, q := range queries {
		require.NoError(t, s.Send(&backendv1.HostMessage{Kind: &backendv1.HostMessage_Issue{Issue: &backendv1.Issue{Samples: pack(q)}}}))
	}
	return d.wait(t, idsOf(queries))
}

func (d *process) Flush(t *testing.T) *backendv1.Status {
	n := d.flushCount() + 1
	if err := d.session(t).Send(&backendv1.HostMessage{Kind: &backendv1.HostMessage_Flush{Flush: &backendv1.Flush{}}}); err != nil {
		return &backendv1.Status{Code: uint32(abi.Aborted), Message: err.Error()}
	}
	return d.waitFlush(n)
}

func (d *process) UnloadSamples(t *testing.T, indices []uint64) *backendv1.Status {
	resp, err := d.rpc.UnloadSamples(t.Context(), &backendv1.UnloadSamplesRequest{Indices: indices})
	require.NoError(t, err)
	return resp.GetStatus()
}

func (d *process) Close(t *testing.T) *backendv1.Status {
	if d.stream != nil {
		require.NoError(t, d.stream.CloseSend())
		<-d.recv
	}
	resp, err := d.rpc.Close(t.Context(), &backendv1.CloseRequest{})
	require.NoError(t, err)
	return resp.GetStatus()
}

// stderr returns what the plugin wrote on stderr that was not a log line.
func (d *process) stderr() string { return d.errOut.String() }

// lockedBuffer is a bytes.Buffer for writers on several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
