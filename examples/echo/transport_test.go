package echo_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/examples/echo"
	"github.com/mlperf-host/mlperf-host/sdk"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the in-process run")

// transcript records what a host saw, one line per fact, in a form that
// must not depend on the transport.
type transcript struct{ strings.Builder }

func (tr *transcript) status(what string, st *backendv1.Status) {
	fmt.Fprintf(&tr.Builder, "%s: %s", what, abi.Code(st.GetCode()))
	if m := st.GetMessage(); m != "" {
		fmt.Fprintf(&tr.Builder, " %q", firstLine(m))
	}
	tr.WriteString("\n")
}

func (tr *transcript) completions(what string, cs []completion) {
	fmt.Fprintf(&tr.Builder, "%s: %d completions\n", what, len(cs))
	for _, c := range cs {
		fmt.Fprintf(&tr.Builder, "  id=%d %s data=%q n_tokens=%d first_tokens=%d\n", c.ID, c.Code, firstLine(string(c.Data)), c.NTokens, c.First)
	}
}

// firstLine drops a panic's stack, which names goroutines and addresses.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// transportCaps are the capability bits that say what a transport can do,
// not what the backend is.
const transportCaps = abi.CapModelPath | abi.CapSharedArena | abi.CapSharedRing

// scenarioSamples are the samples of the scenario: sizes 0 to 40 bytes.
func scenarioSamples() []sdk.LoadedSample {
	samples := make([]sdk.LoadedSample, 10)
	for i := range samples {
		data := make([]byte, i*i/2)
		for j := range data {
			data[j] = 'a' + byte((i+j)%26)
		}
		samples[i] = sdk.LoadedSample{Index: uint64(100 + i), Data: data}
	}
	return samples
}

// query returns records for the given sample indices (offsets into the
// scenario's samples, or absolute indices when >= 100), with ids from
// firstID and WANT_OUTPUT on every other sample.
func query(firstID uint64, indices ...uint64) []abi.IssueRecord {
	q := make([]abi.IssueRecord, len(indices))
	for i, idx := range indices {
		if idx < 100 {
			idx += 100
		}
		q[i] = abi.IssueRecord{ID: firstID + uint64(i), Index: idx}
		if i%2 == 0 {
			q[i].Flags = abi.FlagWantOutput
		}
	}
	return q
}

// scenario drives a full run and returns its transcript.
func scenario(t *testing.T, d driver) string {
	var tr transcript
	info := d.Info(t)
	tr.status("info", info.GetStatus())
	fmt.Fprintf(&tr, "info: %s %s abi v%d.%d caps=%#x max_batch=%d max_in_flight=%d devices=%d\n",
		info.GetName(), info.GetVersion(), info.GetAbiMajor(), info.GetAbiMinor(),
		abi.Capability(info.GetCapabilities())&^transportCaps, info.GetMaxBatch(), info.GetMaxInFlight(), len(info.GetDevices()))
	tr.status("load", d.Load(t, &backendv1.LoadRequest{ModelBytes: []byte("model"), Options: map[string]string{}}))
	tr.status("load samples", d.LoadSamples(t, scenarioSamples()))
	tr.status("warmup", d.Warmup(t))
	tr.completions("single", d.Issue(t, query(1, 3)))
	tr.completions("several", d.Issue(t, query(10, 0, 1, 2, 9), query(20, 5)))
	// More than MaxBatch (7) samples: split into Infer calls.
	big := make([]uint64, 20)
	for i := range big {
		big[i] = uint64(i % 10)
	}
	tr.completions("split", d.Issue(t, query(100, big...)))
	tr.completions("unknown index", d.Issue(t, query(200, 4, 999, 6)))
	tr.status("flush", d.Flush(t))
	tr.status("unload", d.UnloadSamples(t, []uint64{100, 101, 102}))
	tr.completions("after unload", d.Issue(t, query(300, 0, 3)))
	tr.status("close", d.Close(t))
	for _, e := range d.Events() {
		fmt.Fprintf(&tr, "event: %s\n", firstLine(e))
	}
	return tr.String()
}

// scenarioConfig is the echo configuration of the scenario: a small batch
// so that queries split, and first tokens.
var scenarioConfig = echo.Config{MaxBatch: 7, MaxInFlight: 3, FirstTokens: true}

func scenarioEnv() []string {
	return []string{"MLPERF_ECHO_MAX_BATCH=7", "MLPERF_ECHO_MAX_IN_FLIGHT=3", "MLPERF_ECHO_FIRST_TOKENS=1"}
}

// TestTransportsAgree replays the scenario in-process, over gRPC (shared
// arena and inline samples) and in wazero: every transport must give the
// host the same answers, which testdata/scenario.golden holds.
func TestTransportsAgree(t *testing.T) {
	t.Parallel()
	golden := filepath.Join("testdata", "scenario.golden")
	tests := []struct {
		name string
		open func(t *testing.T) driver
	}{
		{name: "in-process", open: func(t *testing.T) driver { return newInproc(t, echo.New(scenarioConfig)) }},
		{name: "subprocess, shared arena", open: func(t *testing.T) driver { return newProcess(t, true, scenarioEnv()...) }},
		{name: "subprocess, inline samples", open: func(t *testing.T) driver { return newProcess(t, false, scenarioEnv()...) }},
		{name: "wasm", open: func(t *testing.T) driver { return newWasm(t, scenarioEnv()...) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := scenario(t, tt.open(t))
			if *update && tt.name == "in-process" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -update to create %s", golden)
			assert.Equal(t, string(want), got)
		})
	}
}
