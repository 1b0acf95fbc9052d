package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testFields = []Field{
	{Name: "title", Kind: String},
	{Name: "cats", Kind: StringList},
	{Name: "image", Kind: Group, Fields: []Field{{Name: "bytes", Kind: Bytes}, {Name: "path", Kind: String}}},
	{Name: "used", Kind: Bool},
}

func testRows() [][]any {
	return [][]any{
		{"a", []string{"x > y", "x"}, []any{[]byte{1, 2, 3}, "a.jpg"}, true},
		{nil, []string{}, nil, false},
		{"c", nil, []any{nil, nil}, nil},
		{"a", []string{"x"}, []any{[]byte{}, "c.png"}, true},
		{"ü", []string{"x", "z", "x"}, []any{bytes.Repeat([]byte{7}, 300), "d"}, false},
	}
}

func openBytes(t *testing.T, b []byte) *File {
	t.Helper()
	f, err := Open("test.parquet", bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	return f
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opt  WriteOptions
	}{
		{name: "plain"},
		{name: "snappy", opt: WriteOptions{Snappy: true}},
		{name: "dictionary", opt: WriteOptions{Dictionary: true, Snappy: true}},
		{name: "row groups", opt: WriteOptions{RowGroup: 2, Dictionary: true}},
		{name: "v2", opt: WriteOptions{V2: true, Snappy: true, RowGroup: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			require.NoError(t, Write(&buf, testFields, testRows(), tc.opt))
			f := openBytes(t, buf.Bytes())
			assert.EqualValues(t, 5, f.NumRows())
			names := []string{}
			for _, l := range f.Leaves() {
				names = append(names, fmt.Sprintf("%s %s def%d rep%d", l.Name(), l.Type, l.MaxDef, l.MaxRep))
			}
			assert.Equal(t, []string{"title BYTE_ARRAY def1 rep0", "cats.list.element BYTE_ARRAY def3 rep1",
				"image.bytes BYTE_ARRAY def2 rep0", "image.path BYTE_ARRAY def2 rep0", "used BOOLEAN def1 rep0"}, names)

			title := scalars(t, f, "title")
			assert.Equal(t, []any{"a", nil, "c", "a", "ü"}, strs(title))
			c, err := f.Column("cats", "list", "element")
			require.NoError(t, err)
			lists, err := c.Lists()
			require.NoError(t, err)
			got := [][]string{}
			for _, l := range lists {
				row := []string{}
				for _, v := range l {
					row = append(row, string(v.Bytes))
				}
				got = append(got, row)
			}
			assert.Equal(t, [][]string{{"x > y", "x"}, {}, {}, {"x"}, {"x", "z", "x"}}, got)
			img := scalars(t, f, "image", "bytes")
			require.Len(t, img, 5)
			assert.Equal(t, []byte{1, 2, 3}, img[0].Bytes)
			assert.Nil(t, img[1])
			assert.Nil(t, img[2])
			assert.Empty(t, img[3].Bytes)
			assert.Len(t, img[4].Bytes, 300)
			used := scalars(t, f, "used")
			assert.True(t, used[0].Bool)
			assert.False(t, used[1].Bool)
			assert.Nil(t, used[2])
			assert.True(t, used[3].Bool)
		})
	}
}

func scalars(t *testing.T, f *File, path ...string) []*Value {
	t.Helper()
	c, err := f.Column(path...)
	require.NoError(t, err)
	v, err := c.Scalars()
	require.NoError(t, err)
	return v
}

func strs(vs []*Value) []any {
	out := []any{}
	for _, v := range vs {
		if v == nil {
			out = append(out, nil)
			continue
		}
		out = append(out, string(v.Bytes))
	}
	return out
}

func TestSnappyDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   []byte
		want string
		err  bool
	}{
		{name: "literal", in: []byte{5, 4 << 2, 'h', 'e', 'l', 'l', 'o'}, want: "hello"},
		// "ab" then a 1-byte-offset copy of 4 from offset 2 (overlapping).
		{name: "copy1", in: []byte{6, 1 << 2, 'a', 'b', 0<<2 | 1, 2}, want: "ababab"},
		// a 2-byte-offset copy of 3 from offset 1.
		{name: "copy2", in: []byte{4, 0, 'z', 2<<2 | 2, 1, 0}, want: "zzzz"},
		{name: "copy4", in: []byte{3, 0, 'q', 1<<2 | 3, 1, 0, 0, 0}, want: "qqq"},
		{name: "long literal", in: append([]byte{70, 60 << 2, 69}, bytes.Repeat([]byte{'k'}, 70)...), want: string(bytes.Repeat([]byte{'k'}, 70))},
		{name: "copy before start", in: []byte{4, 0, 'z', 2<<2 | 2, 5, 0}, err: true},
		{name: "short", in: []byte{9, 4 << 2, 'h'}, err: true},
		{name: "length differs", in: []byte{9, 0, 'h'}, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := SnappyDecode(tc.in)
			if tc.err {
				require.ErrorIs(t, err, ErrFormat)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
	big := bytes.Repeat([]byte("0123456789"), 20000)
	got, err := SnappyDecode(snappyLiteral(big))
	require.NoError(t, err)
	assert.Equal(t, big, got)
}

func TestHybrid(t *testing.T) {
	t.Parallel()
	// A bit-packed run of 8 values of width 3 (0..7), then an RLE run of
	// five 5s.
	data := []byte{1<<1 | 1, 0x88, 0xc6, 0xfa, 5 << 1, 5}
	got, err := hybrid(data, 3, 13)
	require.NoError(t, err)
	assert.Equal(t, []uint64{0, 1, 2, 3, 4, 5, 6, 7, 5, 5, 5, 5, 5}, got)
	_, err = hybrid(data, 3, 14)
	require.ErrorIs(t, err, ErrFormat)
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, testFields, testRows(), WriteOptions{}))
	good := buf.Bytes()
	footerLen := int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{name: "too short", edit: func([]byte) []byte { return []byte("PAR1PAR1") }, want: "too few"},
		{name: "no magic", edit: func(b []byte) []byte { b[0] = 'X'; return b }, want: "magic"},
		{name: "footer too long", edit: func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-8:], uint32(len(b)))
			return b
		}, want: "footer of"},
		{name: "footer cut", edit: func(b []byte) []byte {
			start := len(b) - 8 - footerLen
			out := append([]byte(nil), b[:start]...)
			out = append(out, b[start:start+10]...)
			out = binary.LittleEndian.AppendUint32(out, 10)
			return append(out, Magic...)
		}, want: "footer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := tc.edit(append([]byte(nil), good...))
			_, err := Open("bad.parquet", bytes.NewReader(b), int64(len(b)))
			require.ErrorIs(t, err, ErrFormat)
			assert.Contains(t, err.Error(), "bad.parquet")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestColumnErrors(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, testFields, testRows(), WriteOptions{}))
	f := openBytes(t, buf.Bytes())
	_, err := f.Column("nope")
	require.ErrorContains(t, err, "test.parquet: no column nope")
	c, err := f.Column("title")
	require.NoError(t, err)
	_, err = c.Lists()
	require.ErrorContains(t, err, "not 1")
	c, err = f.Column("cats", "list", "element")
	require.NoError(t, err)
	_, err = c.Scalars()
	require.ErrorContains(t, err, "repeated")

	// A page's bytes damaged: the title column's values overrun.
	b := append([]byte(nil), buf.Bytes()...)
	i := bytes.Index(b, []byte{1, 0, 0, 0, 'a'})
	require.Positive(t, i)
	b[i] = 200
	f = openBytes(t, b)
	_, err = f.Column("title")
	require.ErrorIs(t, err, ErrFormat)
	require.ErrorContains(t, err, "test.parquet: column title, row group 0")
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := Write(&buf, testFields, [][]any{{1, nil, nil, nil}}, WriteOptions{})
	require.ErrorContains(t, err, "row 0 field title: int is not a string")
	err = Write(&buf, testFields, [][]any{{nil}}, WriteOptions{})
	require.ErrorContains(t, err, "row 0: 1 values for 4 fields")
}

func FuzzOpen(f *testing.F) {
	for _, opt := range []WriteOptions{{}, {Snappy: true, Dictionary: true}, {V2: true, RowGroup: 2}} {
		var buf bytes.Buffer
		if err := Write(&buf, testFields, testRows(), opt); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Open("fuzz.parquet", bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for _, l := range file.Leaves() {
			c, err := file.Column(l.Path...)
			if err != nil {
				continue
			}
			switch l.MaxRep {
			case 0:
				_, _ = c.Scalars()
			case 1:
				_, _ = c.Lists()
			}
		}
	})
}

// TestPageV2LevelsOfNone: a v2 page may carry repetition levels for a
// column that has none (a run of zeros of width 0, as parquet-mr writes):
// they are skipped, not read as the definition levels.
func TestPageV2LevelsOfNone(t *testing.T) {
	t.Parallel()
	c := &Column{Leaf: Leaf{Path: []string{"x"}, Type: Int32, MaxDef: 1}}
	data := []byte{3 << 1, 3 << 1, 1} // rep: 3 zeros (width 0); def: 3 ones
	data = binary.LittleEndian.AppendUint32(data, 7)
	data = binary.LittleEndian.AppendUint32(data, 8)
	data = binary.LittleEndian.AppendUint32(data, 9)
	require.NoError(t, c.page(data, 3, encPlain, nil, false, 1, 2))
	vs, err := c.Scalars()
	require.NoError(t, err)
	require.Len(t, vs, 3)
	assert.Equal(t, []int64{7, 8, 9}, []int64{vs[0].Int, vs[1].Int, vs[2].Int})
}
