package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
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
	// raw is the TCP socket's, for doRaw; nil over TLS.
	raw syscall.RawConn
	// The exchange under way: its phase, the request left to write,
	// the response's head, what is left of a Content-Length, the
	// caller's function, the bounds, a raw read's outcome.
	phase  rawPhase
	req    []byte
	head   Head
	h      *Head
	left   int64
	body   func(h *Head, p []byte) error
	t      Timeouts
	rawErr error
	// rawRead as a func value, made once.
	rawFn func(fd uintptr) bool
	// ctx closes the connection at the end of an exchange's context.
	ctx watcher
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
	c := &Conn{nc: nc, buf: make([]byte, readBuf)}
	c.ctx.close = nc.Close
	if tc, ok := nc.(*net.TCPConn); ok && t.TLS == nil && rawSupported {
		if c.raw, err = tc.SyscallConn(); err != nil {
			tc.Close()
			return nil, err
		}
		c.rawFn = c.rawRead
	}
	return c, nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.ctx.stop()
	return c.nc.Close()
}

// Do writes req, a whole HTTP/1.1 request, and reads the response: the
// head, then the body, decoded from its transfer coding, handed to body
// piece by piece (each piece valid only during the call). It returns
// when the body has been read, or at the first error, body's included.
// The connection may be used again only when Do returned no error and
// the head's Close is false. The end of ctx during the exchange closes
// the connection (and sets the head's Close); an ended ctx fails the
// exchange before it starts.
func (c *Conn) Do(ctx context.Context, req []byte, t Timeouts, body func(h *Head, p []byte) error) (Head, error) {
	if err := c.ctx.begin(ctx); err != nil {
		return Head{}, err
	}
	h, err := c.do(req, t, body)
	if c.ctx.end() { // the end of ctx closed the connection
		h.Close = true
		if err != nil {
			return h, ctx.Err()
		}
	}
	return h, err
}

func (c *Conn) do(req []byte, t Timeouts, body func(h *Head, p []byte) error) (Head, error) {
	if c.raw != nil {
		return c.doRaw(req, t, body)
	}
	if err := c.setDeadline(t); err != nil {
		return Head{}, err
	}
	if err := c.nc.SetWriteDeadline(c.readBy); err != nil {
		return Head{}, err
	}
	if _, err := c.nc.Write(req); err != nil {
		return Head{}, c.readErr(err, "first byte", t.FirstByte)
	}
	h, err := c.readHead(t)
	if err != nil {
		return h, err
	}
	if t.Stall == 0 {
		if err := c.clearDeadline(); err != nil {
			return h, err
		}
	}
	return h, c.readBody(&h, t, body)
}

// setDeadline bounds the wait for the response's head; a write through
// c.nc is bounded by the same time, set by the writer (a raw exchange
// writes from inside its wait, and seldom through c.nc).
func (c *Conn) setDeadline(t Timeouts) error {
	var deadline time.Time
	if t.FirstByte > 0 {
		deadline = time.Now().Add(t.FirstByte)
	}
	c.readBy = deadline
	return c.nc.SetReadDeadline(deadline)
}

// clearDeadline lifts the read deadline: a body without a stall bound.
func (c *Conn) clearDeadline() error {
	c.readBy = time.Time{}
	return c.nc.SetReadDeadline(time.Time{})
}

// rawPhase is where a raw exchange is.
type rawPhase uint8

const (
	rawWrite rawPhase = iota // writing the request
	rawHead                  // reading the response's head
	rawBody                  // reading its body
)

var (
	// errBodyDone ends a raw read once the body is whole.
	errBodyDone = errors.New("body done")
	// errWriteRest ends a raw read whose request did not fit in the
	// socket's buffer: the rest is written through the poller.
	errWriteRest = errors.New("request not written whole")
	// errToClose ends a raw read at a head whose body ends with the
	// connection: read by readBody.
	errToClose = errors.New("body to the end of the connection")
	// errWouldBlock is a read or write that found the socket not
	// ready.
	errWouldBlock = errors.New("would block")
)

// doRaw is do on a TCP socket, the whole exchange in one wait on the
// network poller ([syscall.RawConn.Read]), the request written from
// inside it: the socket is then known to be empty and the first read
// waits for the poller's edge instead of first finding nothing. Later
// reads go on until one finds the socket empty, as the poller's own do
// (a read shorter than its room does not mean that: a close or reset
// that came with the last bytes raises no edge of its own).
func (c *Conn) doRaw(req []byte, t Timeouts, body func(h *Head, p []byte) error) (Head, error) {
	if err := c.setDeadline(t); err != nil {
		return Head{}, err
	}
	c.req, c.t, c.body, c.phase, c.head, c.h = req, t, body, rawWrite, Head{}, &c.head
	defer func() { c.req, c.body, c.h = nil, nil, nil }()
	for {
		c.rawErr = nil
		if err := c.raw.Read(c.rawFn); err != nil {
			return c.head, c.phaseErr(err)
		}
		switch c.rawErr {
		case errBodyDone:
			return c.head, nil
		case errWriteRest:
			if err := c.nc.SetWriteDeadline(c.readBy); err != nil {
				return Head{}, err
			}
			if _, err := c.nc.Write(c.req); err != nil {
				return Head{}, c.phaseErr(err)
			}
			c.phase = rawHead
		case errToClose:
			return c.head, c.readBody(&c.head, t, body)
		default:
			return c.head, c.rawErr
		}
	}
}

// what names the wait of the exchange's phase and its bound.
func (c *Conn) what() (string, time.Duration) {
	if c.phase == rawBody {
		return "stall", c.t.Stall
	}
	return "first byte", c.t.FirstByte
}

// rawRead is doRaw's function for [syscall.RawConn.Read]: true when the
// exchange is done here (c.rawErr says how), false to wait for the
// socket.
func (c *Conn) rawRead(fd uintptr) bool {
	if c.phase == rawWrite {
		n, err := writeFD(fd, c.req)
		switch {
		case err == errWouldBlock || (err == nil && n < len(c.req)):
			c.req, c.rawErr = c.req[n:], errWriteRest
			return true
		case err != nil:
			c.rawErr = c.phaseErr(err)
			return true
		}
		c.phase = rawHead
		return false // the reply is not there yet
	}
	for {
		c.compact()
		n, err := readFD(fd, c.buf[c.w:])
		switch {
		case err == errWouldBlock:
			return c.wait()
		case err != nil:
			c.rawErr = c.phaseErr(err)
			return true
		case n == 0:
			c.rawErr = ErrClosedEarly
			return true
		}
		c.w += n
		if c.advance() {
			return true
		}
	}
}

// advance reads the head when it is whole, then hands the body bytes
// on; true when the exchange is done here.
func (c *Conn) advance() bool {
	if c.phase == rawHead {
		h, whole, err := c.takeHead()
		if err != nil {
			c.head, c.rawErr = h, err
			return true
		}
		if !whole {
			return false
		}
		c.head = h
		if c.t.Stall == 0 {
			if c.rawErr = c.clearDeadline(); c.rawErr != nil {
				return true
			}
		}
		if !c.head.Chunked && c.head.ContentLength < 0 {
			c.rawErr = errToClose
			return true
		}
		c.chunk, c.left, c.phase = Chunked{}, c.head.ContentLength, rawBody
	}
	done, err := c.consume()
	switch {
	case err != nil:
		c.rawErr = err
	case done:
		c.rawErr = errBodyDone
	default:
		return false
	}
	return true
}

// wait moves the stall deadline when due, before a wait for the socket
// in the body.
func (c *Conn) wait() bool {
	if c.phase != rawBody {
		return false
	}
	if err := c.moveDeadline(c.t.Stall); err != nil {
		c.rawErr = err
		return true
	}
	return false
}

// readHead reads response heads until one that is not 1xx.
func (c *Conn) readHead(t Timeouts) (Head, error) {
	for {
		h, whole, err := c.takeHead()
		if whole || err != nil {
			return h, err
		}
		if err := c.fill(0); err != nil {
			return Head{}, c.readErr(err, "first byte", t.FirstByte)
		}
	}
}

// takeHead takes the response head from the buffer, skipping 1xx
// heads; whole is false when it has not all arrived.
func (c *Conn) takeHead() (h Head, whole bool, err error) {
	for {
		n := HeadEnd(c.buf[c.r:c.w])
		if n < 0 {
			if c.w-c.r >= MaxHead {
				return Head{}, false, fmt.Errorf("%w: response head longer than %d bytes", ErrMalformed, MaxHead)
			}
			return Head{}, false, nil
		}
		h, err := ParseHead(c.buf[c.r : c.r+n])
		c.r += n
		if err != nil || h.Status >= 200 || h.Status < 100 {
			return h, true, err
		}
	}
}

func (c *Conn) readBody(h *Head, t Timeouts, body func(h *Head, p []byte) error) error {
	if !h.Chunked && h.ContentLength < 0 { // the body ends with the connection
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
	if h.Chunked {
		c.chunk = Chunked{}
	}
	c.h, c.left, c.body = h, h.ContentLength, body
	defer func() { c.h, c.body = nil, nil }()
	for {
		if done, err := c.consume(); done || err != nil {
			return err
		}
		if err := c.fill(t.Stall); err != nil {
			return c.readErr(err, "stall", t.Stall)
		}
	}
}

// consume hands the body bytes in the buffer to c.body and says whether
// the body is whole.
func (c *Conn) consume() (done bool, err error) {
	if c.h.Chunked {
		for c.r < c.w && !c.chunk.Done() {
			p, n, err := c.chunk.Next(c.buf[c.r:c.w])
			c.r += n
			if err != nil {
				return false, err
			}
			if len(p) > 0 {
				if err := c.body(c.h, p); err != nil {
					return false, err
				}
			}
		}
		return c.chunk.Done(), nil
	}
	if c.left > 0 && c.r < c.w {
		n := min(int64(c.w-c.r), c.left)
		p := c.buf[c.r : c.r+int(n)]
		c.r += int(n)
		c.left -= n
		if err := c.body(c.h, p); err != nil {
			return false, err
		}
	}
	return c.left == 0, nil
}

// compact makes room at the buffer's end.
func (c *Conn) compact() {
	if c.r == c.w {
		c.r, c.w = 0, 0
	} else if c.w == len(c.buf) {
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
}

// moveDeadline keeps the read deadline between stall and stall×9/8
// from now when stall is positive, moving it only when it falls out of
// that window.
func (c *Conn) moveDeadline(stall time.Duration) error {
	if stall <= 0 {
		return nil
	}
	now := time.Now()
	if left := c.readBy.Sub(now); c.readBy.IsZero() || left < stall || left > stall+stall/8 {
		c.readBy = now.Add(stall + stall/8)
		return c.nc.SetReadDeadline(c.readBy)
	}
	return nil
}

// fill reads more into the buffer, within stall (to stall×9/8) from now
// when stall is positive.
func (c *Conn) fill(stall time.Duration) error {
	c.compact()
	if err := c.moveDeadline(stall); err != nil {
		return err
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

// phaseErr is readErr for the raw exchange's phase.
func (c *Conn) phaseErr(err error) error {
	what, limit := c.what()
	return c.readErr(err, what, limit)
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
