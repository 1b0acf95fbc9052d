package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// readBuf is a connection's read buffer: a response head must fit in it.
const readBuf = MaxHead

// Target is where a connection goes.
type Target struct {
	// Addr is host:port.
	Addr string
	// TLS, when set, makes the connection HTTPS.
	TLS *tls.Config
	// ConnectTimeout bounds the TCP connect and the TLS handshake; 0 is
	// none.
	ConnectTimeout time.Duration
}

// Timeouts bound one exchange.
type Timeouts struct {
	// FirstByte bounds the wait from sending the request to the
	// response's head; 0 is none.
	FirstByte time.Duration
	// Stall bounds each wait for more of the body; 0 is none. A wait
	// shorter than Stall never fails, one longer than Stall×9/8 always
	// does: the read deadline is moved at most once per Stall/8, not at
	// every read.
	Stall time.Duration
}

// TimeoutError says which wait ran out.
type TimeoutError struct {
	What  string // "first byte" or "stall"
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	if e.What == "stall" {
		return fmt.Sprintf("stream stalled: no data for %v", e.Limit)
	}
	return fmt.Sprintf("no response within %v", e.Limit)
}

// Timeout reports true, as a net.Error's does.
func (e *TimeoutError) Timeout() bool { return true }

// ErrClosedEarly is wrapped when the server closes the connection before
// the response is whole.
var ErrClosedEarly = errors.New("connection closed before the response was complete")

// Conn is one HTTP/1.1 keep-alive connection: one exchange at a time,
// the request written as prepared bytes, the response read into a buffer
// of its own and the body handed out in place.
type Conn struct {
	nc    net.Conn
	buf   []byte
	r, w  int
	chunk Chunked
	// readBy is the read deadline set, zero when none.
	readBy time.Time
	// Req is a buffer the caller may build its request in.
	Req []byte
}

// Dial connects to t.
func Dial(ctx context.Context, t Target) (*Conn, error) {
	if t.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.ConnectTimeout)
		defer cancel()
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", t.Addr)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if t.TLS != nil {
		tc := tls.Client(nc, t.TLS)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, fmt.Errorf("tls handshake: %w", err)
		}
		nc = tc
	}
	return &Conn{nc: nc, buf: make([]byte, readBuf)}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// Do writes req, a whole HTTP/1.1 request, and reads the response: the
// head, then the body, decoded from its transfer coding, handed to body
// piece by piece (each piece valid only during the call). It returns
// when the body has been read, or at the first error, body's included.
// The connection may be used again only when Do returned no error and
// the head's Close is false. The end of ctx closes the connection.
func (c *Conn) Do(ctx context.Context, req []byte, t Timeouts, body func(h *Head, p []byte) error) (Head, error) {
	var canceled atomic.Bool
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { canceled.Store(true); c.nc.Close() })
		defer stop()
	}
	h, err := c.do(req, t, body)
	if err != nil && canceled.Load() {
		return h, ctx.Err()
	}
	return h, err
}

func (c *Conn) do(req []byte, t Timeouts, body func(h *Head, p []byte) error) (Head, error) {
	var deadline time.Time
	if t.FirstByte > 0 {
		deadline = time.Now().Add(t.FirstByte)
	}
	if err := c.nc.SetDeadline(deadline); err != nil {
		return Head{}, err
	}
	c.readBy = deadline
	if _, err := c.nc.Write(req); err != nil {
		return Head{}, c.readErr(err, "first byte", t.FirstByte)
	}
	h, err := c.readHead(t)
	if err != nil {
		return h, err
	}
	if t.Stall == 0 {
		if err := c.nc.SetReadDeadline(time.Time{}); err != nil {
			return h, err
		}
		c.readBy = time.Time{}
	}
	return h, c.readBody(&h, t, body)
}

// readHead reads response heads until one that is not 1xx.
func (c *Conn) readHead(t Timeouts) (Head, error) {
	for {
		n := HeadEnd(c.buf[c.r:c.w])
		for n < 0 {
			if c.w-c.r >= MaxHead {
				return Head{}, fmt.Errorf("%w: response head longer than %d bytes", ErrMalformed, MaxHead)
			}
			if err := c.fill(0); err != nil {
				return Head{}, c.readErr(err, "first byte", t.FirstByte)
			}
			n = HeadEnd(c.buf[c.r:c.w])
		}
		h, err := ParseHead(c.buf[c.r : c.r+n])
		c.r += n
		if err != nil || h.Status >= 200 || h.Status < 100 {
			return h, err
		}
	}
}

func (c *Conn) readBody(h *Head, t Timeouts, body func(h *Head, p []byte) error) error {
	switch {
	case h.Chunked:
		c.chunk = Chunked{}
		for !c.chunk.Done() {
			if c.r == c.w {
				if err := c.fill(t.Stall); err != nil {
					return c.readErr(err, "stall", t.Stall)
				}
			}
			p, n, err := c.chunk.Next(c.buf[c.r:c.w])
			c.r += n
			if err != nil {
				return err
			}
			if len(p) > 0 {
				if err := body(h, p); err != nil {
					return err
				}
			}
		}
	case h.ContentLength >= 0:
		for left := h.ContentLength; left > 0; {
			if c.r == c.w {
				if err := c.fill(t.Stall); err != nil {
					return c.readErr(err, "stall", t.Stall)
				}
			}
			n := min(int64(c.w-c.r), left)
			p := c.buf[c.r : c.r+int(n)]
			c.r += int(n)
			left -= n
			if err := body(h, p); err != nil {
				return err
			}
		}
	default: // the body ends with the connection
		h.Close = true
		for {
			if c.r < c.w {
				p := c.buf[c.r:c.w]
				c.r = c.w
				if err := body(h, p); err != nil {
					return err
				}
			}
			if err := c.fill(t.Stall); errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				return c.readErr(err, "stall", t.Stall)
			}
		}
	}
	return nil
}

// fill reads more into the buffer, within stall (to stall×9/8) from now
// when stall is positive.
func (c *Conn) fill(stall time.Duration) error {
	if c.r == c.w {
		c.r, c.w = 0, 0
	} else if c.w == len(c.buf) {
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
	if stall > 0 {
		// Keep the deadline between stall and stall×9/8 from now.
		now := time.Now()
		if left := c.readBy.Sub(now); c.readBy.IsZero() || left < stall || left > stall+stall/8 {
			c.readBy = now.Add(stall + stall/8)
			if err := c.nc.SetReadDeadline(c.readBy); err != nil {
				return err
			}
		}
	}
	n, err := c.nc.Read(c.buf[c.w:])
	c.w += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// readErr names what a failed read means.
func (c *Conn) readErr(err error, what string, limit time.Duration) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &TimeoutError{What: what, Limit: limit}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ErrClosedEarly
	}
	return err
}
