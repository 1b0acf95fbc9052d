package wire

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deadlineConn is a connection whose reads always return a byte and
// which counts the read deadlines set.
type deadlineConn struct {
	net.Conn
	set []time.Time
}

func (c *deadlineConn) Read(p []byte) (int, error) { p[0] = 'x'; return 1, nil }
func (c *deadlineConn) SetReadDeadline(t time.Time) error {
	c.set = append(c.set, t)
	return nil
}

// TestStallDeadline: a body read keeps the read deadline between stall
// and stall×9/8 from now, moving it only when it falls out of that
// window: not at every read, and at once when the first byte's longer
// deadline is still set.
func TestStallDeadline(t *testing.T) {
	t.Parallel()
	const stall = time.Hour // no machine is this slow between two calls
	nc := &deadlineConn{}
	c := &Conn{nc: nc, buf: make([]byte, 16)}
	c.readBy = time.Now().Add(10 * 24 * time.Hour) // the first byte's deadline
	before := time.Now()
	require.NoError(t, c.fill(stall))
	after := time.Now()
	require.Len(t, nc.set, 1, "the first byte's deadline is too far: moved")
	assert.False(t, c.readBy.Before(before.Add(stall)))
	assert.False(t, c.readBy.After(after.Add(stall+stall/8)))
	for range 10 {
		c.r = c.w // the buffer read
		require.NoError(t, c.fill(stall))
	}
	assert.Len(t, nc.set, 1, "within the window: not moved")
	c.readBy = time.Now().Add(stall / 2) // as if stall/2 had passed and more
	require.NoError(t, c.fill(stall))
	assert.Len(t, nc.set, 2, "less than stall left: moved")
	require.NoError(t, c.fill(0))
	assert.Len(t, nc.set, 2, "no stall bound: the deadline is left alone")
}
