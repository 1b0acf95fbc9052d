package sdktest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
	"github.com/mlperf-host/mlperf-host/sdk/sdktest"
)

// flaw is a way a backend can break the contract.
type flaw string

const (
	flawNone      flaw = ""
	flawForget    flaw = "forget"    // return without completing the last sample
	flawDuplicate flaw = "duplicate" // complete every sample twice
	flawUnknown   flaw = "unknown"   // complete an id never issued
	flawGarble    flaw = "garble"    // wrong output
	flawPanic     flaw = "panic"     // panic in Infer
	flawFail      flaw = "fail"      // fail every sample
	flawNoName    flaw = "noname"    // Info without a name
	flawLoad      flaw = "load"      // refuse every model
	flawAcceptAll flaw = "acceptall" // accept the bad model
	flawMutate    flaw = "mutate"    // write to a sample's bytes
)

// mirror is a small echo backend with one flaw.
type mirror struct {
	flaw flaw
}

var _ sdk.Backend = (*mirror)(nil)

func (m *mirror) Info() sdk.Info {
	if m.flaw == flawNoName {
		return sdk.Info{Version: "1"}
	}
	return sdk.Info{Name: "mirror", Version: "1", MaxBatch: 4, MaxInFlight: 3}
}

func (m *mirror) Load(_ context.Context, model sdk.Model) error {
	if m.flaw == flawLoad || (string(model.Bytes) == "bad" && m.flaw != flawAcceptAll) {
		return sdk.Errorf(abi.InvalidArgument, "mirror: bad model")
	}
	return nil
}

func (m *mirror) Infer(_ context.Context, q sdk.Query, c sdk.Completer) error {
	for i, s := range q.Samples {
		switch {
		case m.flaw == flawPanic:
			panic("mirror broke")
		case m.flaw == flawForget && i == len(q.Samples)-1:
			continue
		case m.flaw == flawFail:
			c.Fail(s.ID, errors.New("mirror: cannot"))
			continue
		case m.flaw == flawUnknown:
			c.Complete(s.ID^1<<62, nil, 0)
		case m.flaw == flawMutate && len(s.Data) > 0:
			s.Data[0]++ // the SDK's samples are read-only; this one is not protected
		}
		out := s.Data
		if m.flaw == flawGarble && len(out) > 0 {
			out = append([]byte{out[0] + 1}, out[1:]...)
		}
		if !s.WantOutput {
			out = nil
		}
		c.Complete(s.ID, out, 0)
		if m.flaw == flawDuplicate {
			c.Complete(s.ID, out, 0)
		}
	}
	return nil
}

func (m *mirror) Close() error { return nil }

const flawEnv = "SDKTEST_FLAW"

// TestFlawedHelper is the child process of TestKitFindsFlaws: it runs the
// kit on a flawed backend. It is skipped in a normal run.
func TestFlawedHelper(t *testing.T) {
	f, ok := os.LookupEnv(flawEnv)
	if !ok {
		t.Skip("run by TestKitFindsFlaws")
	}
	sdktest.Config{
		Check:    sdktest.Echo,
		BadModel: &sdk.Model{Bytes: []byte("bad")},
		New:      func() sdk.Backend { return &mirror{flaw: flaw(f)} },
	}.Run(t, &mirror{flaw: flaw(f)})
}

func TestKitFindsFlaws(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		flaw flaw
		// want are fragments of the child's output; nil means it passes.
		want []string
	}{
		{name: "a correct backend passes", flaw: flawNone},
		{name: "forgotten sample", flaw: flawForget, want: []string{"returned from Infer without completing sample id"}},
		{name: "duplicate completion", flaw: flawDuplicate, want: []string{"backend bug", "which was completed before"}},
		{name: "unknown id", flaw: flawUnknown, want: []string{"backend bug", "which is not in this Infer call"}},
		{name: "wrong output", flaw: flawGarble, want: []string{"want the sample's bytes"}},
		{name: "panic", flaw: flawPanic, want: []string{"64 of 64 samples are wrong", "INTERNAL: backend panicked in Infer: mirror broke"}},
		{name: "failed samples", flaw: flawFail, want: []string{"mirror: cannot"}},
		{name: "no name", flaw: flawNoName, want: []string{"Info().Name", "backend Info has no Name"}},
		// A failed precondition stops the steps after it.
		{name: "load fails", flaw: flawLoad, want: []string{"Load failed", "INVALID_ARGUMENT: load: mirror: bad model", "--- FAIL: TestFlawedHelper/load "}},
		{name: "bad model accepted", flaw: flawAcceptAll, want: []string{"Load accepted the bad model"}},
		{name: "samples written to", flaw: flawMutate, want: []string{"--- FAIL: TestFlawedHelper/tensors_reach_the_backend", "a backend must not write to its samples"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestFlawedHelper$", "-test.v")
			cmd.Env = append(os.Environ(), flawEnv+"="+string(tt.flaw))
			out, err := cmd.CombinedOutput()
			if tt.want == nil {
				require.NoError(t, err, "%s", out)
				assert.Contains(t, string(out), "--- PASS: TestFlawedHelper")
				return
			}
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "the kit passed a flawed backend:\n%s", out)
			for _, w := range tt.want {
				assert.Contains(t, string(out), w, "the kit's output lacks it:\n%s", tail(out))
			}
		})
	}
}

// tail returns the end of a long output.
func tail(out []byte) string {
	const keep = 4000
	if len(out) > keep {
		return "..." + string(out[len(out)-keep:])
	}
	return string(out)
}
