package wire

import (
	"fmt"
	"io"
	"net"
	"strings"
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

// serveOnce accepts one connection on a loopback listener, reads a
// request head and writes reply in one write, then keeps the connection
// open until the test ends.
func serveOnce(t *testing.T, reply []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		t.Cleanup(func() { c.Close() })
		buf := make([]byte, 4096)
		var got []byte
		for HeadEnd(got) < 0 {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			got = append(got, buf[:n]...)
		}
		_, _ = c.Write(reply)
	}()
	return ln.Addr().String()
}

// TestDoLargeBody: a body several buffers long that arrives at once is
// read whole, chunked or of a Content-Length: a read that fills the
// buffer is followed by another at once.
func TestDoLargeBody(t *testing.T) {
	t.Parallel()
	payload := strings.Repeat("0123456789abcdef", 3*readBuf/16+5)
	var chunked strings.Builder
	for rest := payload; rest != ""; {
		n := min(len(rest), 5000)
		fmt.Fprintf(&chunked, "%x\r\n%s\r\n", n, rest[:n])
		rest = rest[n:]
	}
	chunked.WriteString("0\r\n\r\n")
	replies := map[string]string{
		"chunked":        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked.String(),
		"content-length": fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(payload), payload),
	}
	for name, reply := range replies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr := serveOnce(t, []byte(reply))
			c, err := Dial(t.Context(), Target{Addr: addr})
			require.NoError(t, err)
			defer c.Close()
			var got []byte
			h, err := c.Do(t.Context(), []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), Timeouts{FirstByte: time.Minute, Stall: time.Minute},
				func(_ *Head, p []byte) error { got = append(got, p...); return nil })
			require.NoError(t, err)
			assert.Equal(t, 200, h.Status)
			assert.Len(t, got, len(payload))
			assert.Equal(t, payload, string(got))
		})
	}
}

// TestDoLargeRequest: a request larger than the socket's buffer, whose
// first write is partial, is written whole before the reply is read.
func TestDoLargeRequest(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	body := strings.Repeat("x", 32<<20)
	got := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		defer c.Close()
		n, _ := io.Copy(io.Discard, io.LimitReader(c, int64(len(body)+54)))
		got <- int(n)
		_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	}()
	c, err := Dial(t.Context(), Target{Addr: ln.Addr().String()})
	require.NoError(t, err)
	defer c.Close()
	req := fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	require.Len(t, req, len(body)+54, "the server reads exactly the request")
	var reply []byte
	h, err := c.Do(t.Context(), []byte(req), Timeouts{FirstByte: time.Minute, Stall: time.Minute},
		func(_ *Head, p []byte) error { reply = append(reply, p...); return nil })
	require.NoError(t, err)
	assert.Equal(t, 200, h.Status)
	assert.Equal(t, "ok", string(reply))
	assert.Equal(t, len(req), <-got)
}
