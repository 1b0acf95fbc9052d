package conformance

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
)

func input() Input {
	return Input{Model: host.Model{Bytes: []byte("model"), Options: map[string]string{"stream": "2"}},
		Samples: []host.Sample{{Index: 0, Data: []byte{1}}, {Index: 5, Data: []byte{2}}}}
}

// good fails samples whose index was never loaded, as a plugin must.
func good() *hosttest.Backend {
	b := hosttest.New(host.Info{Name: "fake", Version: "1", MaxBatch: 4, MaxInFlight: 2})
	b.Status = func(r abi.IssueRecord) abi.Code {
		if r.Index != 0 && r.Index != 5 {
			return abi.InvalidArgument
		}
		return abi.OK
	}
	return b
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		make func() *hosttest.Backend
		// fail names the check that must fail; "" for none.
		fail    string
		skipped bool
	}{
		{name: "conforming", make: good},
		{name: "accepts unknown index", fail: "unknown sample index", make: func() *hosttest.Backend {
			return hosttest.New(host.Info{Name: "fake", MaxBatch: 4})
		}},
		{name: "no output", fail: "single sample", skipped: true, make: func() *hosttest.Backend {
			b := good()
			b.Output = func(abi.IssueRecord) []byte { return nil }
			return b
		}},
		{name: "nondeterministic", fail: "deterministic output", make: func() *hosttest.Backend {
			b := good()
			n := byte(0)
			b.Output = func(abi.IssueRecord) []byte { n++; return []byte{n} }
			return b
		}},
		// The options given break the schema the plugin declared.
		{name: "options outside the schema", fail: "option schema", make: func() *hosttest.Backend {
			b := hosttest.New(host.Info{Name: "fake", Version: "1", MaxBatch: 4, MaxInFlight: 2,
				Options: []host.OptionSpec{{Name: "streams", Type: abi.OptionUint}}})
			b.Status = good().Status
			return b
		}},
		{name: "sample errors", fail: "single sample", skipped: true, make: func() *hosttest.Backend {
			b := good()
			b.Status = func(abi.IssueRecord) abi.Code { return abi.Internal }
			return b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := tt.make()
			res, err := Run(context.Background(), b, input())
			require.Len(t, res, 15)
			failed := ""
			skipped := false
			for _, r := range res {
				if r.Err != nil && failed == "" {
					failed = r.Name
				}
				skipped = skipped || r.Skipped
			}
			assert.Equal(t, tt.fail, failed)
			assert.Equal(t, tt.skipped, skipped)
			if tt.fail == "" {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrFailed)
				assert.Contains(t, err.Error(), tt.fail)
			}
			assert.Contains(t, b.Calls(), "Close", "the backend is closed either way")
		})
	}
}

func TestLoadFailureStops(t *testing.T) {
	t.Parallel()
	b := good()
	b.Fail(errors.New("boom"))
	res, err := Run(context.Background(), b, input())
	require.ErrorIs(t, err, ErrFailed)
	assert.Equal(t, "load model", res[2].Name)
	require.Error(t, res[2].Err)
	assert.True(t, res[3].Skipped)
}
