package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWASMLoadCanceled: canceling the context of a control call stops a
// guest looping in it at once (not at the call deadline) and ends the
// backend; Close returns promptly.
func TestWASMLoadCanceled(t *testing.T) {
	t.Parallel()
	for _, g := range []Guard{GuardLoops, GuardStrict} {
		t.Run(string(g), func(t *testing.T) {
			t.Parallel()
			b := openEcho(t, Config{Guard: g, CallTimeout: time.Hour, Instances: 2})
			ctx, cancel := context.WithCancelCause(t.Context())
			time.AfterFunc(100*time.Millisecond, func() { cancel(errors.New("operator pressed ^C")) })
			start := time.Now()
			err := b.Load(ctx, Model{Bytes: []byte("loop forever")})
			assert.Less(t, time.Since(start), 10*time.Second, "the cancel stopped the guest")
			require.ErrorIs(t, err, ErrStopped)
			assert.ErrorContains(t, err, `plugin "watecho": stop: stopped by the host: load interrupted: operator pressed ^C`)
			waitDone(t, b)
			start = time.Now()
			require.NoError(t, b.Close())
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

// TestKill: Kill fails every sample in flight at once with the cause and
// stops the plugin: a stalled subprocess is killed, a WASM guest looping
// in issue is stopped; Close then does not wait.
func TestKill(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		open func(t *testing.T) Backend
		recs int
	}{
		{name: "subprocess", recs: 2, open: func(t *testing.T) Backend {
			return openFake(t, fakeStall, Config{StallTimeout: time.Hour, CloseTimeout: time.Hour})
		}},
		{name: "wasm", recs: 1, open: func(t *testing.T) Backend {
			b := openEcho(t, Config{CallTimeout: time.Hour, CloseTimeout: time.Hour, Instances: 1})
			require.NoError(t, b.Load(t.Context(), Model{Bytes: []byte("m")}))
			return b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := tt.open(t)
			rec := newRecorder()
			b.SetHandler(rec)
			recs := records(1, 0, tt.recs)
			if tt.name == "wasm" {
				recs[0].Index = modeLoop
			}
			require.NoError(t, b.Issue(t.Context(), recs))
			time.Sleep(100 * time.Millisecond) // the plugin holds them
			require.True(t, Kill(b, errors.New("second ^C")))
			rec.wait(t, tt.recs)
			for _, c := range rec.done {
				assert.NotEqual(t, 0, int(c.Status))
				assert.Contains(t, string(c.Data), "second ^C")
			}
			require.ErrorIs(t, b.Err(), ErrStopped)
			start := time.Now()
			_ = b.Close()
			assert.Less(t, time.Since(start), 5*time.Second, "Close does not wait after Kill")
		})
	}
}

// TestCloseHang: a plugin that does not answer Close is stopped after the
// close timeout, and Close says which plugin and what it did.
func TestCloseHang(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		open func(t *testing.T) Backend
		want string
	}{
		{name: "subprocess", want: `plugin "fake": close: did not return in time: no answer to Close within 300ms; the host killed it`,
			open: func(t *testing.T) Backend {
				return openFake(t, fakeCloseHang, Config{CloseTimeout: 300 * time.Millisecond})
			}},
		{name: "wasm", want: `plugin "watecho": close: did not return in time: no answer to Close within 300ms; the host stopped it`,
			open: func(t *testing.T) Backend {
				b := openEcho(t, Config{CloseTimeout: 300 * time.Millisecond, CallTimeout: time.Hour})
				require.NoError(t, b.Load(t.Context(), Model{Bytes: []byte("hang in close")}))
				return b
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := tt.open(t)
			start := time.Now()
			err := b.Close()
			assert.Less(t, time.Since(start), 10*time.Second, "bounded by the close timeout")
			require.ErrorIs(t, err, ErrHang)
			assert.EqualError(t, err, tt.want)
		})
	}
}
