//go:build !wasip1

package sdktest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// The helpers below test a subprocess plugin's built binary (what
// sdk.Serve serves) rather than its Backend value: the flags, the exit
// codes and the gRPC service a host reaches.

// RunPlugin runs bin to completion, as a person would (without the
// go-plugin handshake cookie), with env added to the test's environment.
func RunPlugin(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
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
		if k, _, _ := strings.Cut(kv, "="); k != abi.MagicCookieKey {
			out = append(out, kv)
		}
	}
	return out
}

// ServePlugin starts bin in -serve mode, reads its reattach line (which
// must name the plugin name and this ABI major, and carry a token) and
// returns a client of its Backend service that sends the token. The process is interrupted when the test ends and
// must exit cleanly.
func ServePlugin(t *testing.T, bin, name string, env ...string) backendv1grpc.BackendClient {
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
		Token    string `json:"token"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &addr), "%s", line)
	assert.Equal(t, name, addr.Plugin)
	assert.Equal(t, abi.Major, addr.ABIMajor)
	require.Equal(t, "unix", addr.Network)
	require.NotEmpty(t, addr.Token, "serve mode answers only the holder of its token")
	conn, err := grpc.NewClient("unix://"+addr.Address, grpc.WithTransportCredentials(insecure.NewCredentials()),
		backendv1grpc.TokenCredentials(addr.Token))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return backendv1grpc.NewBackendClient(conn)
}

// EchoQuery loads n samples of size bytes through c, issues them as one
// query wanting every output in a session, and checks that each sample's
// output is its input: for a backend (or a fake runtime) that copies.
func EchoQuery(t *testing.T, c backendv1grpc.BackendClient, n, size int) {
	t.Helper()
	req := &backendv1.LoadSamplesRequest{}
	var records []byte
	want := map[uint64][]byte{}
	for i := range uint64(n) {
		data := bytes.Repeat([]byte{byte(i + 1)}, size)
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
