package hosttest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
)

type collect struct{ got []host.Completion }

func (c *collect) Complete(batch []host.Completion) {
	for _, x := range batch {
		x.Data = bytes.Clone(x.Data)
		c.got = append(c.got, x)
	}
}
func (c *collect) FirstTokens([]host.Completion) {}

func TestFake(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := New(host.Info{Name: "fake"})
	assert.Equal(t, host.TransportInProcess, b.Info().Transport)
	c := &collect{}
	b.SetHandler(c)
	require.NoError(t, b.Load(ctx, host.Model{Path: "m.onnx"}))
	require.NoError(t, b.LoadSamples(ctx, []host.Sample{{Index: 1, Data: []byte("one")}}))
	require.NoError(t, b.Warmup(ctx))
	b.Status = func(r abi.IssueRecord) abi.Code {
		if r.Index == 3 {
			return abi.Internal
		}
		return abi.OK
	}
	require.NoError(t, b.Issue(ctx, []abi.IssueRecord{
		{ID: 10, Index: 1, Flags: abi.FlagWantOutput}, {ID: 11, Index: 2, Flags: abi.FlagWantOutput}, {ID: 12, Index: 2}, {ID: 13, Index: 3},
	}))
	assert.Equal(t, []host.Completion{
		{ID: 10, Data: []byte("one")},
		{ID: 11, Data: binary.LittleEndian.AppendUint64(nil, 2)},
		{ID: 12},
		{ID: 13, Status: abi.Internal, Data: []byte("INTERNAL")},
	}, c.got)

	b.HoldBack()
	require.NoError(t, b.Issue(ctx, []abi.IssueRecord{{ID: 20}}))
	assert.Len(t, c.got, 4)
	require.NoError(t, b.Flush(ctx))
	assert.Equal(t, uint64(20), c.got[4].ID)

	require.NoError(t, b.Issue(ctx, []abi.IssueRecord{{ID: 21}}))
	boom := errors.New("plugin crashed")
	b.Fail(boom)
	<-b.Done()
	assert.Equal(t, host.Completion{ID: 21, Status: abi.Aborted, Data: []byte("plugin crashed")}, c.got[5])
	require.ErrorIs(t, b.Issue(ctx, []abi.IssueRecord{{ID: 22}}), boom)
	require.NoError(t, b.Close())
	require.ErrorIs(t, b.Err(), boom)

	issued, queries := b.Issued()
	assert.Len(t, issued, 6)
	assert.Equal(t, 3, queries)
	assert.Equal(t, []string{"Load", "LoadSamples", "Warmup", "Flush", "Close"}, b.Calls())
	assert.Equal(t, "m.onnx", b.Model().Path)
	assert.Equal(t, []uint64{1}, b.Loaded())
}

func TestFakeClose(t *testing.T) {
	t.Parallel()
	b := New(host.Info{})
	c := &collect{}
	b.SetHandler(c)
	b.HoldBack()
	require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: 1}}))
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	assert.ErrorIs(t, b.Err(), host.ErrClosed)
	assert.Equal(t, abi.Aborted, c.got[0].Status, "held samples fail at Close")
	assert.ErrorIs(t, b.Load(t.Context(), host.Model{}), host.ErrClosed)
}

func TestFakeHandlerMayIssue(t *testing.T) {
	t.Parallel()
	// A LoadGen may issue its next query from the completion of the last.
	b := New(host.Info{})
	n := 0
	b.SetHandler(host.HandlerFuncs{OnComplete: func(batch []host.Completion) {
		if n++; n < 3 {
			require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: batch[0].ID + 1}}))
		}
	}})
	require.NoError(t, b.Issue(t.Context(), []abi.IssueRecord{{ID: 1}}))
	issued, queries := b.Issued()
	assert.Equal(t, 3, queries)
	assert.Equal(t, uint64(3), issued[2].ID)
}
