//go:build unix

package host

import (
	"bytes"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/internal/testcerts"
)

// countingListener counts the bytes its connections read: what crossed
// the wire to the server.
type countingListener struct {
	net.Listener
	read atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{c, &l.read}, nil
}

type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// TestRemoteNetworkDivision: in the Network division the samples' bytes
// do not cross the wire at LoadSamples and do cross with every query,
// the plugin gets them as loaded samples (never inside the query), and
// each query's output is its sample's bytes; without it, the bytes cross
// once at LoadSamples and queries carry ids only.
func TestRemoteNetworkDivision(t *testing.T) {
	t.Parallel()
	const size = 64 << 10
	samples := make([]Sample, 4)
	for i := range samples {
		samples[i] = Sample{Index: uint64(i), Data: bytes.Repeat([]byte{byte('a' + i)}, size)}
	}
	for _, tc := range []struct {
		name               string
		network            bool
		atLoad, perQuery   int64 // the least bytes expected to cross
		notAtLoad, noQuery bool  // and where fewer than one sample's must
	}{
		{name: "network division", network: true, perQuery: size, notAtLoad: true},
		{name: "samples loaded ahead", atLoad: int64(len(samples)) * size, noQuery: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			ln := &countingListener{Listener: inner}
			addr, _, _ := serveRemoteOn(t, ln, nil)
			b, err := OpenRemote(t.Context(), RemoteConfig{Plugin: "fake", Address: addr, InsecureLoopback: true, NetworkDivision: tc.network}, Config{})
			require.NoError(t, err)
			defer b.Close()
			rec := newRecorder()
			b.SetHandler(rec)

			before := ln.read.Load()
			require.NoError(t, b.LoadSamples(t.Context(), samples))
			atLoad := ln.read.Load() - before
			assert.GreaterOrEqual(t, atLoad, tc.atLoad, "bytes at LoadSamples")
			if tc.notAtLoad {
				assert.Less(t, atLoad, int64(size), "no sample's bytes at LoadSamples")
			}
			// The same sample twice: its bytes cross each time.
			for q, idx := range []uint64{2, 2, 1} {
				id := uint64(100 + q)
				before := ln.read.Load()
				require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: id, Index: idx, Flags: abi.FlagWantOutput}}))
				rec.wait(t, q+1)
				perQuery := ln.read.Load() - before
				assert.GreaterOrEqual(t, perQuery, tc.perQuery, "query %d: bytes with the query", q)
				if tc.noQuery {
					assert.Less(t, perQuery, int64(size), "query %d: ids only", q)
				}
				c, ok := rec.get(id)
				require.True(t, ok, "query %d completed", q)
				assert.Equal(t, samples[idx].Data, c.Data, "query %d: the sample's bytes come back", q)
			}
			require.NoError(t, b.UnloadSamples(t.Context(), []uint64{0, 1, 2, 3}))
			require.NoError(t, b.Close())
		})
	}
}

// TestRemoteNetworkDivisionFails: a query naming a sample never loaded,
// or one whose sample the plugin refuses when serve loads it, fails the
// backend with an error naming the cause; serve logs the refusal.
func TestRemoteNetworkDivisionFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		load   []Sample
		index  uint64
		err    string
		served string
	}{
		{name: "not loaded", index: 9, err: "network division: sample index 9 issued but not loaded"},
		{name: "refused by the plugin", load: []Sample{{Index: fakeRefusedSample, Data: []byte("x")}}, index: fakeRefusedSample,
			err: "network division: the plugin refused a query's 1 samples: sample 999: not an image", served: "refused a host's message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, logs := serveRemote(t, nil)
			b, err := OpenRemote(t.Context(), RemoteConfig{Plugin: "fake", Address: addr, InsecureLoopback: true, NetworkDivision: true}, Config{})
			require.NoError(t, err)
			defer b.Close()
			b.SetHandler(newRecorder())
			require.NoError(t, b.LoadSamples(t.Context(), tc.load))
			require.NoError(t, b.Issue(t.Context(), records(1, tc.index, 1)))
			select {
			case <-b.Done():
			case <-time.After(20 * time.Second):
				t.Fatal("the backend did not fail")
			}
			assert.ErrorContains(t, b.Err(), tc.err)
			assert.Contains(t, logs.String(), tc.served)
		})
	}
}

// TestRemoteDialTimeout: a server that accepts the connection but never
// answers the TLS handshake fails OpenRemote once the dial timeout has
// passed, with an error that says so, long before the first call's own
// timeout.
func TestRemoteDialTimeout(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() { // accept, and say nothing
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	dir := t.TempDir()
	ca := testcerts.NewCA(t, dir, "ca")
	conf, err := ClientTLS(tlsFiles(ca.Issue(t, dir, "client", time.Now().Add(time.Hour))), "127.0.0.1")
	require.NoError(t, err)
	const callTimeout = 5 * time.Minute
	start := time.Now()
	_, err = OpenRemote(t.Context(), RemoteConfig{Plugin: "silent", Address: ln.Addr().String(), TLS: conf, DialTimeout: 300 * time.Millisecond},
		Config{CallTimeout: callTimeout})
	require.ErrorIs(t, err, ErrStart)
	assert.ErrorContains(t, err, "cannot connect over mutual TLS (dial timeout 300ms;")
	assert.ErrorContains(t, err, "handshake failed: context deadline exceeded")
	assert.Less(t, time.Since(start), callTimeout, "the dial timeout ended it, not the call's")
}

// TestRemoteLargeSample: a sample larger than gRPC's default 4 MiB
// message crosses serve, loaded ahead or with its query, and comes back
// whole.
func TestRemoteLargeSample(t *testing.T) {
	t.Parallel()
	addr, _ := serveRemote(t, nil)
	big := Sample{Index: 5, Data: bytes.Repeat([]byte("0123456789abcdef"), 6<<20/16)}
	for _, network := range []bool{false, true} {
		b, err := OpenRemote(t.Context(), RemoteConfig{Plugin: "fake", Address: addr, InsecureLoopback: true, NetworkDivision: network}, Config{})
		require.NoError(t, err)
		rec := newRecorder()
		b.SetHandler(rec)
		require.NoError(t, b.LoadSamples(t.Context(), []Sample{big}))
		require.NoError(t, b.Issue(t.Context(), records(1, big.Index, 1)))
		rec.wait(t, 1)
		c, ok := rec.get(1)
		require.True(t, ok)
		assert.Equal(t, big.Data, c.Data, "network division %v", network)
		require.NoError(t, b.Close())
	}
}

// FuzzCarriesSamples: the tag scan that picks the queries serve loads
// samples for never panics, and finds every message whose decoded Issue
// carries sample data, so none reaches a plugin with it.
func FuzzCarriesSamples(f *testing.F) {
	n := newNetworkSamples()
	n.load([]Sample{{Index: 1, Data: []byte("abc")}})
	withData, err := n.issueMessage(records(1, 1, 1), abi.AppendIssueRecord(nil, records(1, 1, 1)[0]))
	require.NoError(f, err)
	for _, m := range []*backendv1.HostMessage{
		withData,
		{Kind: &backendv1.HostMessage_Issue{Issue: &backendv1.Issue{Samples: abi.AppendIssueRecord(nil, records(1, 1, 1)[0])}}},
		{Kind: &backendv1.HostMessage_Flush{Flush: &backendv1.Flush{}}},
	} {
		b, err := proto.Marshal(m)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := carriesSamples(b)
		var m backendv1.HostMessage
		if proto.Unmarshal(b, &m) == nil && len(m.GetIssue().GetSampleData()) > 0 {
			assert.True(t, got, "a decoded Issue with sample data")
		}
	})
}
