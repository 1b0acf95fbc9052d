package wire

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keepAlive accepts one connection on a loopback listener and answers
// each request head on it with "ok", except those it is told to leave
// unanswered: answer gets a value per request, true to answer. Each
// request's arrival is sent on got.
func keepAlive(t *testing.T, answer <-chan bool) (addr string, got <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	arrived := make(chan struct{}, 16)
	go func() {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 4096)
		var in []byte
		for {
			n := HeadEnd(in)
			for n < 0 {
				k, err := c.Read(buf)
				if err != nil {
					return
				}
				in = append(in, buf[:k]...)
				n = HeadEnd(in)
			}
			in = in[n:]
			arrived <- struct{}{}
			if <-answer {
				if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
					return
				}
			}
		}
	}()
	return ln.Addr().String(), arrived
}

var getReq = []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")

func do(ctx context.Context, c *Conn) (Head, string, error) {
	var body []byte
	h, err := c.Do(ctx, getReq, Timeouts{FirstByte: time.Minute, Stall: time.Minute},
		func(_ *Head, p []byte) error { body = append(body, p...); return nil })
	return h, string(body), err
}

// TestContextEnd: the end of an exchange's context closes the
// connection while the exchange is under way and not once it is done;
// exchanges made one after another with one context, or with another
// after the first ended, use the one connection; an ended context fails
// the exchange before its request is sent.
func TestContextEnd(t *testing.T) {
	t.Parallel()
	answer := make(chan bool, 16)
	addr, got := keepAlive(t, answer)
	c, err := Dial(t.Context(), Target{Addr: addr})
	require.NoError(t, err)
	defer c.Close()

	first, cancelFirst := context.WithCancel(t.Context())
	for range 3 {
		answer <- true
		h, body, err := do(first, c)
		require.NoError(t, err)
		assert.Equal(t, "ok", body)
		assert.False(t, h.Close)
		<-got
	}
	cancelFirst()

	_, _, err = do(first, c)
	require.ErrorIs(t, err, context.Canceled, "an ended context")
	select {
	case <-got:
		t.Fatal("the request of an ended context was sent")
	default:
	}

	answer <- true
	h, body, err := do(t.Context(), c)
	require.NoError(t, err, "the first context's end left the idle connection open")
	assert.Equal(t, "ok", body)
	assert.False(t, h.Close)
	<-got

	during, cancelDuring := context.WithCancel(t.Context())
	answer <- false
	go func() { <-got; cancelDuring() }()
	h, _, err = do(during, c)
	require.ErrorIs(t, err, context.Canceled, "ended during the exchange")
	assert.True(t, h.Close, "the connection was closed")
}
