package abi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIssueRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	want := []IssueRecord{
		{ID: 1, Index: 0},
		{ID: 0xfedcba9876543210, Index: 1<<63 + 5, Flags: FlagWantOutput},
		{ID: 3, Index: 42, Flags: 0x80000000}, // unknown bits travel unchanged
	}
	var b []byte
	for _, r := range want {
		b = AppendIssueRecord(b, r)
	}
	require.Len(t, b, len(want)*IssueRecordSize)
	rs, err := ParseIssueRecords(b)
	require.NoError(t, err)
	require.Equal(t, len(want), rs.Len())
	for i, r := range want {
		assert.Equal(t, r, rs.At(i))
	}
}

func TestIssueRecordLayout(t *testing.T) {
	t.Parallel()
	// The layout is the ABI: pin it byte for byte.
	b := AppendIssueRecord(nil, IssueRecord{ID: 0x0102030405060708, Index: 0x1112131415161718, Flags: FlagWantOutput})
	assert.Equal(t, []byte{
		8, 7, 6, 5, 4, 3, 2, 1,
		0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,
		1, 0, 0, 0,
		0, 0, 0, 0,
	}, b)
}

func TestParseIssueRecordsRejectsPartial(t *testing.T) {
	t.Parallel()
	_, err := ParseIssueRecords(make([]byte, IssueRecordSize+1))
	require.ErrorIs(t, err, ErrMalformed)
	assert.ErrorContains(t, err, "25 bytes")
}

func TestCompletionsRoundTrip(t *testing.T) {
	t.Parallel()
	type in struct {
		id      uint64
		status  Code
		data    string
		nTokens int64
	}
	want := []in{
		{id: 7, data: "abc", nTokens: 0},
		{id: 8, data: ""},
		{id: 9, status: Internal, data: "device lost"},
		{id: 10, data: "tokens", nTokens: -1},
	}
	var recs, data []byte
	for _, c := range want {
		recs, data = AppendCompletion(recs, data, c.id, c.status, []byte(c.data), c.nTokens)
	}
	cs, err := ParseCompletions(recs, data)
	require.NoError(t, err)
	require.Equal(t, len(want), cs.Len())
	var got []in
	for c := range cs.All {
		got = append(got, in{id: c.ID, status: c.Status, data: string(c.Data), nTokens: c.NTokens})
		assert.Equal(t, len(c.Data), cap(c.Data), "data must not let a writer reach the next record")
	}
	assert.Equal(t, want, got)
}

func TestParseCompletionsRejects(t *testing.T) {
	t.Parallel()
	recs, data := AppendCompletion(nil, nil, 1, OK, []byte("four"), 0)
	tests := []struct {
		name    string
		records []byte
		data    []byte
		msg     string
	}{
		{name: "partial record", records: recs[:CompletionRecordSize-1], data: data, msg: "not a multiple"},
		{name: "data too short", records: recs, data: data[:3], msg: "claim 4 data bytes, message has 3"},
		{name: "data too long", records: recs, data: append(data, 'x'), msg: "claim 4 data bytes, message has 5"},
		{name: "no records but data", records: nil, data: data, msg: "claim 0 data bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseCompletions(tt.records, tt.data)
			require.ErrorIs(t, err, ErrMalformed)
			assert.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestWasmCompletionRecordRoundTrip(t *testing.T) {
	t.Parallel()
	want := WasmCompletionRecord{ID: 1 << 40, Status: Unavailable, DataPtr: 0x10000, DataLen: 77, NTokens: 12}
	b := make([]byte, 2*WasmCompletionRecordSize)
	PutWasmCompletionRecord(b[WasmCompletionRecordSize:], want)
	assert.Equal(t, want, WasmCompletionRecordAt(b, 1))
	assert.Equal(t, WasmCompletionRecord{}, WasmCompletionRecordAt(b, 0))
}

func TestHotPathDoesNotAllocate(t *testing.T) {
	// Not parallel: testing.AllocsPerRun counts every goroutine's allocations.
	recs := make([]byte, 0, 64*CompletionRecordSize)
	data := make([]byte, 0, 1024)
	issue := make([]byte, 0, 64*IssueRecordSize)
	payload := []byte("0123456789")
	allocs := testing.AllocsPerRun(100, func() {
		recs, data, issue = recs[:0], data[:0], issue[:0]
		for i := range 64 {
			issue = AppendIssueRecord(issue, IssueRecord{ID: uint64(i), Index: uint64(i)})
			recs, data = AppendCompletion(recs, data, uint64(i), OK, payload, 0)
		}
		rs, _ := ParseIssueRecords(issue)
		for i := range rs.Len() {
			_ = rs.At(i)
		}
		cs, _ := ParseCompletions(recs, data)
		for c := range cs.All {
			_ = c
		}
	})
	assert.Zero(t, allocs)
}

func FuzzParseCompletions(f *testing.F) {
	recs, data := AppendCompletion(nil, nil, 1, OK, []byte("abc"), 2)
	recs, data = AppendCompletion(recs, data, 2, Internal, []byte("boom"), 0)
	f.Add(recs, data)
	f.Add([]byte{}, []byte{})
	f.Add(recs[:10], data)
	f.Fuzz(func(t *testing.T, records, data []byte) {
		cs, err := ParseCompletions(records, data)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		total := 0
		for c := range cs.All {
			require.Len(t, c.Data, int(c.DataLen))
			total += len(c.Data)
		}
		require.Equal(t, len(data), total)
	})
}

func FuzzParseIssueRecords(f *testing.F) {
	f.Add(AppendIssueRecord(nil, IssueRecord{ID: 1, Index: 2, Flags: FlagWantOutput}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ParseIssueRecords(b)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		var again []byte
		for i := range rs.Len() {
			again = AppendIssueRecord(again, rs.At(i))
		}
		// Reserved bytes are written as zero; everything else round-trips.
		for i := range rs.Len() {
			require.Equal(t, rs.At(i), IssueRecords(again).At(i))
		}
	})
}
