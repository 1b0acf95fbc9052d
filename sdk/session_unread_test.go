//go:build !wasip1

package sdk

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// bulkyBackend answers every sample with 64 KiB and says when it answered
// its first query.
type bulkyBackend struct {
	out  []byte
	done chan struct{}
}

func (*bulkyBackend) Info() Info {
	return Info{Name: "bulky", Version: "0", MaxBatch: 64, MaxInFlight: 1}
}
func (*bulkyBackend) Load(context.Context, Model) error { return nil }
func (*bulkyBackend) Close() error                      { return nil }
func (b *bulkyBackend) Infer(_ context.Context, q Query, c Completer) error {
	for _, s := range q.Samples {
		c.Complete(s.ID, b.out, 0)
	}
	select {
	case <-b.done:
	default:
		close(b.done)
	}
	return nil
}

// A host that issues one query, then neither reads nor sends again: once
// the completions it left unread pass the plugin's limit, the session
// ends with the cause, without waiting for a host message that never
// comes.
func TestSessionEndsWhenItsHostStopsReading(t *testing.T) {
	t.Parallel()
	be := &bulkyBackend{out: make([]byte, 64<<10), done: make(chan struct{})}
	srv := loadBench(t, be, ServerConfig{MaxUnreadBytes: 1 << 20})
	stream := openSessionStream(t, srv) // gRPC's default windows: 64 KiB
	require.NoError(t, stream.Send(&backendv1.HostMessage{Kind: &backendv1.HostMessage_Issue{
		Issue: &backendv1.Issue{Samples: issueRecords(64, true)}}})) // 4 MiB of outputs
	<-be.done

	ended := make(chan error, 1)
	go func() {
		var in backendv1.PluginMessage
		for {
			if err := stream.RecvMsg(&in); err != nil {
				ended <- err
				return
			}
		}
	}()
	select {
	case err := <-ended:
		assert.ErrorContains(t, err, "stopped reading its session")
	case <-time.After(2 * time.Minute):
		t.Fatal("the session of a host that stopped reading never ended")
	}
}
