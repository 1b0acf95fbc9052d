package native

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStrings(t *testing.T) {
	t.Parallel()
	c := CString("abc")
	assert.Equal(t, []byte("abc\x00"), c)
	assert.Equal(t, "abc", GoString(uintptr(unsafe.Pointer(&c[0]))))
	assert.Empty(t, GoString(0))
	assert.Equal(t, "ab", Text([]byte("ab\x00cd")))
	assert.Equal(t, "abcd", Text([]byte("abcd")), "no NUL: all of it")
	assert.Nil(t, Bytes(nil, 4))
	assert.Equal(t, []byte("ab"), Bytes(unsafe.Pointer(&c[0]), 2))
}

func TestMapped(t *testing.T) {
	t.Parallel()
	m, err := Map(10)
	require.NoError(t, err)
	b := m.Bytes()
	require.Len(t, b, 10)
	b[9] = 7
	require.NoError(t, m.Free())
	require.NoError(t, Mapped{}.Free(), "freeing nothing")
}

func TestOpen(t *testing.T) {
	t.Parallel()
	_, err := Open([]string{"/nonexistent/libx.so"})
	require.Error(t, err)
	_, err = Open(nil)
	require.EqualError(t, err, "no candidate paths")
}

func TestBind(t *testing.T) {
	t.Parallel()
	lib, err := Open([]string{"/nonexistent/libx.so", "libc.so.6"})
	if err != nil {
		t.Skipf("no libc.so.6 to open here: %v", err)
	}
	assert.Equal(t, "libc.so.6", lib.Path, "the first candidate that loads")
	var strlen, missing uintptr
	require.NoError(t, lib.Bind([]Symbol{{Name: "strlen", Fn: &strlen}, {Name: "no_such_fn", Fn: &missing, Optional: true}}))
	assert.NotZero(t, strlen)
	assert.Zero(t, missing, "an optional symbol may be absent")
	err = lib.Bind([]Symbol{{Name: "no_such_fn", Fn: &missing}})
	require.ErrorContains(t, err, "libc.so.6: missing symbol no_such_fn")
}
