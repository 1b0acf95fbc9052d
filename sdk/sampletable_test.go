package sdk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSampleTable(t *testing.T) {
	t.Parallel()
	type op struct {
		put    bool // else remove
		index  uint64
		value  byte // the sample's one byte
		wantOK bool // put: replaced a sample; remove: removed one
	}
	tests := []struct {
		name string
		ops  []op
		want map[uint64]byte // what get returns afterwards
		miss []uint64        // indices get must not find
	}{
		{name: "dense in order", ops: []op{{put: true, index: 0, value: 1}, {put: true, index: 1, value: 2}, {put: true, index: 2, value: 3}},
			want: map[uint64]byte{0: 1, 1: 2, 2: 3}, miss: []uint64{3, 100}},
		{name: "replace", ops: []op{{put: true, index: 5, value: 1}, {put: true, index: 5, value: 2, wantOK: true}},
			want: map[uint64]byte{5: 2}, miss: []uint64{4, 6}},
		{name: "remove", ops: []op{{put: true, index: 1, value: 1}, {index: 1, wantOK: true}, {index: 1}, {index: 7}},
			miss: []uint64{1, 7}},
		// Far past the loaded count: kept in the map, not in a huge slice.
		{name: "sparse", ops: []op{{put: true, index: 1 << 40, value: 9}, {put: true, index: 3, value: 4}},
			want: map[uint64]byte{1 << 40: 9, 3: 4}, miss: []uint64{1<<40 - 1, 2}},
		{name: "sparse remove", ops: []op{{put: true, index: 1 << 40, value: 9}, {index: 1 << 40, wantOK: true}},
			miss: []uint64{1 << 40}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var st sampleTable
			owner := &sampleOwner{}
			for _, o := range tt.ops {
				if o.put {
					_, ok := st.put(o.index, loadedEntry{data: []byte{o.value}, owner: owner})
					assert.Equal(t, o.wantOK, ok, "put %d", o.index)
					continue
				}
				_, ok := st.remove(o.index)
				assert.Equal(t, o.wantOK, ok, "remove %d", o.index)
			}
			assert.Equal(t, len(tt.want), st.len())
			for i, v := range tt.want {
				e, ok := st.get(i)
				require.True(t, ok, "get %d", i)
				assert.Equal(t, []byte{v}, e.data, "get %d", i)
			}
			for _, i := range tt.miss {
				_, ok := st.get(i)
				assert.False(t, ok, "get %d", i)
			}
			var all []byte
			st.removeAll(func(e loadedEntry) { all = append(all, e.data...) })
			assert.Len(t, all, len(tt.want))
			assert.Zero(t, st.len())
			for i := range tt.want {
				_, ok := st.get(i)
				assert.False(t, ok, "get %d after removeAll", i)
			}
		})
	}
}

func TestSampleTableDenseBound(t *testing.T) {
	t.Parallel()
	var st sampleTable
	owner := &sampleOwner{}
	for i := range uint64(10_000) {
		st.put(i, loadedEntry{data: []byte{}, owner: owner})
	}
	assert.Len(t, st.dense, 10_000, "a dense data set lives in the slice")
	assert.Empty(t, st.sparse)
	st.put(1<<20, loadedEntry{data: []byte{}, owner: owner})
	assert.Len(t, st.dense, 10_000, "one far index does not grow the slice")
	assert.Len(t, st.sparse, 1)
}

func TestSampleTableGrowsOverSparse(t *testing.T) {
	t.Parallel()
	var st sampleTable
	owner := &sampleOwner{}
	st.put(1500, loadedEntry{data: []byte{7}, owner: owner})
	require.Len(t, st.sparse, 1, "far past an empty table: in the map")
	for i := range uint64(500) {
		st.put(i, loadedEntry{data: []byte{}, owner: owner})
	}
	// 1800 is within the bound now: the slice grows over 1500.
	st.put(1800, loadedEntry{data: []byte{8}, owner: owner})
	assert.Empty(t, st.sparse, "an index the slice covers moved out of the map")
	e, ok := st.get(1500)
	require.True(t, ok)
	assert.Equal(t, []byte{7}, e.data)
	_, ok = st.remove(1500)
	assert.True(t, ok)
	assert.Equal(t, 501, st.len())
}
