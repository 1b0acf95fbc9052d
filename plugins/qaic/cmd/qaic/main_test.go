package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

func TestNewBackendFromEnvironment(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]string{
		"MLPERF_QAIC_SET_SIZE=0": "set_size must be at least 1",
		"MLPERF_QAIC_BOGUS=1":    "option bogus: unknown",
	} {
		_, err := newBackend([]string{env})
		require.Error(t, err, env)
		assert.Contains(t, err.Error(), "MLPERF_QAIC_* environment variables")
		assert.Contains(t, err.Error(), want)
	}

	b, err := newBackend([]string{"MLPERF_QAIC_LIBRARY=/nonexistent/libQAic.so", "MLPERF_QAIC_SET_SIZE=3"})
	require.NoError(t, err, "a missing runtime is no reason not to start")
	info := b.Info()
	assert.Empty(t, info.Devices)
	assert.Contains(t, info.Description, "/nonexistent/libQAic.so")
	assert.Equal(t, 3, info.MaxInFlight, "one activation × set size when no device is found")
}

// TestBinary builds the plugin and runs it as the host would find it: the
// manifest's entry, started as a subprocess. With -serve it serves the
// ABI's gRPC service on a socket it prints, which the test drives with the
// ABI's generated client.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := buildPlugin(t)
	var m struct {
		Name     string `json:"name"`
		Version  string `json:"version"`
		Kind     string `json:"kind"`
		ABIMajor int    `json:"abi_major"`
		Entry    string `json:"entry"`
	}
	raw, err := os.ReadFile("plugin.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &m))
	assert.Equal(t, "process", m.Kind)
	assert.Equal(t, "qaic", m.Entry, "make accel-plugins installs the binary under this name")
	assert.Equal(t, abi.Major, m.ABIMajor)

	t.Run("version matches the manifest", func(t *testing.T) {
		t.Parallel()
		stdout, _, code := run(t, bin, nil, "-version")
		assert.Zero(t, code)
		assert.Equal(t, fmt.Sprintf("%s %s (mlperf-host plugin ABI %s)\n", m.Name, m.Version,
			abi.VersionString(abi.Major, abi.Minor)), stdout)
	})
	t.Run("without the handshake cookie", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := run(t, bin, []string{"MLPERF_QAIC_LIBRARY=/nonexistent/libQAic.so"})
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, `This is the "qaic" backend plugin `+m.Version)
		assert.Contains(t, stderr, "cannot load libQAic.so", "the usage says why no device is listed")
		assert.Contains(t, stderr, "mlperf-host --plugin qaic")
	})
	t.Run("bad environment", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := run(t, bin, []string{"MLPERF_QAIC_ACTIVATIONS=zero"}, "-version")
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "option activations")
	})
	t.Run("serves without the AIC runtime", func(t *testing.T) {
		t.Parallel()
		c := serve(t, bin, "MLPERF_QAIC_LIBRARY=/nonexistent/libQAic.so")
		info, err := c.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
		require.NoError(t, err)
		require.Equal(t, abi.OK, abi.Code(info.GetStatus().GetCode()), info.GetStatus().GetMessage())
		assert.Empty(t, info.GetDevices())
		assert.Contains(t, info.GetDescription(), "libQAic.so")
		load, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: []byte("qpc")})
		require.NoError(t, err)
		assert.Equal(t, abi.FailedPrecondition.String(), abi.Code(load.GetStatus().GetCode()).String())
		assert.Contains(t, load.GetStatus().GetMessage(), "/nonexistent/libQAic.so")
		assert.Contains(t, load.GetStatus().GetMessage(), "install the Qualcomm Cloud AI Platform")
		closed, err := c.Close(t.Context(), &backendv1.CloseRequest{})
		require.NoError(t, err)
		assert.Equal(t, abi.OK, abi.Code(closed.GetStatus().GetCode()))
	})
	t.Run("serves on the fake runtime", func(t *testing.T) {
		t.Parallel()
		c := serve(t, bin, "MLPERF_QAIC_LIBRARY="+fakeRuntime(t), "MLPERF_QAIC_PROBE_DEVICES=4")
		info, err := c.Info(t.Context(), &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
		require.NoError(t, err)
		require.Len(t, info.GetDevices(), 2, info.GetDescription())
		assert.Equal(t, "Cloud AI 100 (QID 1)", info.GetDevices()[1].GetName())
		assert.Equal(t, uint32(4), info.GetMaxInFlight(), "2 devices × 1 activation × 2 exec objects")
		// The fake program copies the input row to the output row.
		program := []byte("fakeqpc 1\nbatch 4\ncores 4\ninput x 16\noutput y 16\n")
		load, err := c.Load(t.Context(), &backendv1.LoadRequest{ModelBytes: program,
			Options: map[string]string{"batch_size": "4"}})
		require.NoError(t, err)
		require.Equal(t, abi.OK, abi.Code(load.GetStatus().GetCode()), load.GetStatus().GetMessage())
		runQueries(t, c, 16)
		closed, err := c.Close(t.Context(), &backendv1.CloseRequest{})
		require.NoError(t, err)
		assert.Equal(t, abi.OK, abi.Code(closed.GetStatus().GetCode()), closed.GetStatus().GetMessage())
	})
}

// buildPlugin builds this package as the make target does: no cgo.
func buildPlugin(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH: the test builds the plugin binary")
	}
	bin := filepath.Join(t.TempDir(), "qaic")
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// run runs the binary to completion with env added to the test's
// environment, minus the go-plugin cookie.
func run(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Env = append(withoutCookie(os.Environ()), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errOut.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errOut.String(), 0
}

func withoutCookie(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if k, _, _ := bytes.Cut([]byte(kv), []byte("=")); string(k) != abi.MagicCookieKey {
			out = append(out, kv)
		}
	}
	return out
}

// serve starts the binary in -serve mode, as a host reattaching to it
// finds it, and returns a client of its Backend service. The process is
// interrupted when the test ends and must exit cleanly.
func serve(t *testing.T, bin string, env ...string) backendv1grpc.BackendClient {
	t.Helper()
	cmd := exec.Command(bin, "-serve")
	cmd.Env = append(withoutCookie(os.Environ()), env...)
	cmd.Stderr = t.Output()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		assert.NoError(t, cmd.Process.Signal(os.Interrupt))
		assert.NoError(t, cmd.Wait(), "the plugin exits cleanly when interrupted")
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the reattach line")
	var addr struct {
		Plugin   string `json:"plugin"`
		ABIMajor int    `json:"abi_major"`
		Network  string `json:"network"`
		Address  string `json:"address"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &addr), "%s", line)
	assert.Equal(t, "qaic", addr.Plugin)
	assert.Equal(t, abi.Major, addr.ABIMajor)
	require.Equal(t, "unix", addr.Network)
	conn, err := grpc.NewClient("unix://"+addr.Address, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return backendv1grpc.NewBackendClient(conn)
}

// runQueries loads n samples of 16 bytes, issues them as one query that
// wants every output, and checks that each comes back as it went in.
func runQueries(t *testing.T, c backendv1grpc.BackendClient, n int) {
	t.Helper()
	req := &backendv1.LoadSamplesRequest{}
	var records []byte
	want := map[uint64][]byte{}
	for i := range uint64(n) {
		data := bytes.Repeat([]byte{byte(i + 1)}, 16)
		req.Samples = append(req.Samples, &backendv1.SampleRef{Index: i, Data: data})
		id := 1000 + i
		want[id] = data
		records = abi.AppendIssueRecord(records, abi.IssueRecord{ID: id, Index: i, Flags: abi.FlagWantOutput})
	}
	loaded, err := c.LoadSamples(t.Context(), req)
	require.NoError(t, err)
	require.Equal(t, abi.OK, abi.Code(loaded.GetStatus().GetCode()), loaded.GetStatus().GetMessage())

	sess, err := c.Session(t.Context())
	require.NoError(t, err)
	require.NoError(t, sess.Send(&backendv1.HostMessage{Kind: &backendv1.HostMessage_Issue{
		Issue: &backendv1.Issue{Samples: records}}}))
	got := map[uint64][]byte{}
	for len(got) < n {
		msg, err := sess.Recv()
		require.NoError(t, err)
		cs := msg.GetCompletions()
		require.NotNil(t, cs, "unexpected session message %v", msg)
		parsed, err := abi.ParseCompletions(cs.GetRecords(), cs.GetData())
		require.NoError(t, err)
		for comp := range parsed.All {
			require.Equal(t, abi.OK, comp.Status, "sample %d: %s", comp.ID, comp.Data)
			got[comp.ID] = bytes.Clone(comp.Data)
		}
	}
	assert.Equal(t, want, got)
	require.NoError(t, sess.CloseSend())
	for {
		if _, err := sess.Recv(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
}

// fakeRuntime compiles the aic package's fake libQAic
// (plugins/qaic/aic/testdata/fake) into a shared library.
func fakeRuntime(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: the fake AIC runtime is compiled by the test")
	}
	lib := filepath.Join(t.TempDir(), "libQAic.so")
	out, err := exec.Command("gcc", "-shared", "-fPIC", "-O2", "-Wall", "-o", lib,
		filepath.Join("..", "..", "aic", "testdata", "fake", "fakeqaic.c"), "-lpthread").CombinedOutput()
	require.NoError(t, err, "gcc: %s", out)
	return lib
}
