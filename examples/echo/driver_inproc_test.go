package echo_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// inproc drives a backend through sdk.Server directly: the reference.
type inproc struct {
	*collector
	srv  *sdk.Server
	sess *sdk.Session
}

var _ driver = (*inproc)(nil)

func newInproc(t *testing.T, b sdk.Backend) *inproc {
	d := &inproc{collector: newCollector(), srv: sdk.NewServer(b, sdk.ServerConfig{Logger: slog.New(slog.NewTextHandler(t.Output(), nil)), ModelPath: true})}
	t.Cleanup(func() { d.srv.Close() })
	return d
}

// The collector as the session's output.
type inprocOut struct{ *collector }

func (o inprocOut) Complete(id uint64, code abi.Code, data []byte, n int64) {
	o.complete(id, code, data, n)
}
func (o inprocOut) FirstToken(id uint64, _ []byte) { o.firstToken(id) }
func (o inprocOut) Flushed(code abi.Code, msg string) {
	o.flushed(&backendv1.Status{Code: uint32(code), Message: msg})
}
func (o inprocOut) Violation(_ uint64, err error) { o.event("backend bug: "+err.Error(), true) }

func (d *inproc) Info(*testing.T) *backendv1.InfoResponse {
	return d.srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major})
}

func (d *inproc) Load(t *testing.T, req *backendv1.LoadRequest) *backendv1.Status {
	return d.srv.Load(t.Context(), req).GetStatus()
}

func (d *inproc) LoadSamples(t *testing.T, samples []sdk.LoadedSample) *backendv1.Status {
	return d.srv.LoadSamples(t.Context(), samples, nil).GetStatus()
}

func (d *inproc) Warmup(t *testing.T) *backendv1.Status { return d.srv.Warmup(t.Context()).GetStatus() }

func (d *inproc) session(t *testing.T) *sdk.Session {
	if d.sess == nil {
		s, err := d.srv.OpenSession(t.Context(), inprocOut{d.collector})
		require.NoError(t, err)
		d.sess = s
	}
	return d.sess
}

func (d *inproc) Issue(t *testing.T, queries ...[]abi.IssueRecord) []completion {
	for _, q := range queries {
		require.NoError(t, d.session(t).Issue(pack(q)))
	}
	return d.wait(t, idsOf(queries))
}

func (d *inproc) Flush(t *testing.T) *backendv1.Status {
	n := d.flushCount() + 1
	if err := d.session(t).Flush(); err != nil {
		return &backendv1.Status{Code: uint32(abi.Aborted), Message: err.Error()}
	}
	return d.waitFlush(n)
}

func (d *inproc) UnloadSamples(t *testing.T, indices []uint64) *backendv1.Status {
	return d.srv.UnloadSamples(t.Context(), &backendv1.UnloadSamplesRequest{Indices: indices}).GetStatus()
}

func (d *inproc) Close(*testing.T) *backendv1.Status {
	if d.sess != nil {
		d.sess.End()
	}
	return d.srv.Close().GetStatus()
}
