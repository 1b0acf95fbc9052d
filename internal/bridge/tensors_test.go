package bridge

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/examples/echo"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/manifest"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// TestTensorsReachThePlugin: through both transports (the subprocess with
// its shared arena and inline, WASM inline), samples of three tensors of
// their own lengths reach the SDK's echo example, which answers with the
// tensors it read by name.
func TestTensorsReachThePlugin(t *testing.T) {
	t.Parallel()
	inputs := []host.TensorSpec{
		{Name: "input_ids", DType: abi.Int32, Shape: []int{-1}},
		{Name: "input_mask", DType: abi.Int32, Shape: []int{-1}},
		{Name: "segment_ids", DType: abi.Int32, Shape: []int{-1}},
	}
	var samples []host.Sample
	for i := range uint64(5) {
		l := 1 + int(i)*3
		s := host.Sample{Index: i}
		for k := range 3 {
			s.Tensors = append(s.Tensors, host.TensorRef{Shape: []int{l}, Offset: len(s.Data), Length: 4 * l})
			for j := range l {
				s.Data = binary.LittleEndian.AppendUint32(s.Data, uint32(int(i)*1000+k*100+j))
			}
		}
		samples = append(samples, s)
	}
	open := map[string]func(t *testing.T) host.Backend{
		"process arena": func(t *testing.T) host.Backend {
			b, err := host.Open(t.Context(), echoProcess(t), host.Config{})
			require.NoError(t, err)
			return b
		},
		"process inline": func(t *testing.T) host.Backend {
			b, err := host.Open(t.Context(), echoProcess(t), host.Config{DisableSharedArena: true})
			require.NoError(t, err)
			return b
		},
		"wasm": func(t *testing.T) host.Backend {
			b, err := host.OpenWASM(t.Context(), "echo", echoWASM(t), host.Config{Instances: 1})
			require.NoError(t, err)
			return b
		},
	}
	for name, open := range open {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := open(t)
			t.Cleanup(func() { _ = b.Close() })
			rec := &outputs{got: map[uint64]host.Completion{}}
			b.SetHandler(rec)
			require.NoError(t, b.Load(t.Context(), host.Model{Bytes: []byte("m"), Inputs: inputs}))
			require.NoError(t, b.LoadSamples(t.Context(), samples))
			var recs []abi.IssueRecord
			for _, s := range samples {
				recs = append(recs, abi.IssueRecord{ID: 100 + s.Index, Index: s.Index, Flags: abi.FlagWantOutput})
			}
			require.NoError(t, b.Issue(t.Context(), recs))
			require.Eventually(t, func() bool { return rec.len() == len(samples) }, time.Minute, time.Millisecond)
			for _, s := range samples {
				c, ok := rec.get(100 + s.Index)
				require.True(t, ok)
				require.NoError(t, c.Err())
				got, err := echo.DecodeTensors(c.Data)
				require.NoError(t, err)
				require.Len(t, got, 3)
				for k, in := range inputs {
					ref := s.Tensors[k]
					assert.Equal(t, in.Name, got[k].Name)
					assert.Equal(t, in.DType, got[k].DType)
					assert.Equal(t, ref.Shape, got[k].Shape, "sample %d tensor %s", s.Index, in.Name)
					assert.Equal(t, s.Data[ref.Offset:ref.Offset+ref.Length], got[k].Data, "sample %d tensor %s", s.Index, in.Name)
				}
			}
		})
	}
}

// outputs keeps a copy of every completion.
type outputs struct {
	mu  sync.Mutex
	got map[uint64]host.Completion
}

func (o *outputs) Complete(batch []host.Completion) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range batch {
		c.Data = bytes.Clone(c.Data)
		o.got[c.ID] = c
	}
}

func (o *outputs) FirstTokens([]host.Completion) {}

func (o *outputs) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.got)
}

func (o *outputs) get(id uint64) (host.Completion, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c, ok := o.got[id]
	return c, ok
}

// echoProcess builds the echo example as a subprocess plugin.
func echoProcess(t *testing.T) host.Plugin {
	return host.Plugin{Name: "echo", Kind: manifest.KindProcess, Entry: sdktest.BuildPlugin(t, "../../examples/echo/cmd/echo", "echo")}
}

// echoWASM builds the echo example as a WASM reactor.
func echoWASM(t *testing.T) []byte {
	out := filepath.Join(t.TempDir(), "echo.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "../../examples/echo/cmd/echo")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "build the echo guest: %s", b)
	m, err := os.ReadFile(out)
	require.NoError(t, err)
	return m
}
