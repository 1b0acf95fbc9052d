package parquet

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInt64RoundTrip: int64 fields and lists of int64s (gpt-oss-120b's
// token ids, as pyarrow writes a list<int64> column) read back as
// written, a null row and an empty list included, in both page versions
// and across row groups.
func TestInt64RoundTrip(t *testing.T) {
	t.Parallel()
	fields := []Field{{Name: "input_tokens", Kind: Int64List}, {Name: "n", Kind: Int64Kind}}
	rows := [][]any{{[]int64{1, 1 << 40, -3}, int64(3)}, {nil, nil}, {[]int64{}, int64(-1 << 62)}, {[]int64{7}, int64(1)}}
	for _, opt := range []WriteOptions{{}, {Snappy: true, V2: true, RowGroup: 3}} {
		var b bytes.Buffer
		require.NoError(t, Write(&b, fields, rows, opt))
		f, err := Open("t.parquet", bytes.NewReader(b.Bytes()), int64(b.Len()))
		require.NoError(t, err)
		c, err := f.Column("input_tokens", "list", "element")
		require.NoError(t, err)
		assert.Equal(t, Int64, c.Leaf.Type)
		lists, err := c.Lists()
		require.NoError(t, err)
		var got [][]int64
		for _, l := range lists {
			row := []int64{}
			for _, v := range l {
				row = append(row, v.Int)
			}
			got = append(got, row)
		}
		assert.Equal(t, [][]int64{{1, 1 << 40, -3}, {}, {}, {7}}, got)
		c, err = f.Column("n")
		require.NoError(t, err)
		ns, err := c.Scalars()
		require.NoError(t, err)
		require.Len(t, ns, 4)
		assert.Equal(t, int64(3), ns[0].Int)
		assert.Nil(t, ns[1])
		assert.Equal(t, int64(-1<<62), ns[2].Int)
	}
	var b bytes.Buffer
	assert.ErrorContains(t, Write(&b, fields, [][]any{{[]string{"x"}, int64(1)}}, WriteOptions{}), "row 0 field input_tokens: []string is not a []int64")
	assert.ErrorContains(t, Write(&b, fields, [][]any{{nil, 1.5}}, WriteOptions{}), "row 0 field n: float64 is not a int64")
}
