//go:build linux

package cost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// floorClient is the least a client can do for the same exchange on
// this machine, the floor the other two are held against: one blocking
// socket, the request written by one write(2) and the reply read by
// blocking read(2)s until its framing ends, both made without telling
// Go's scheduler (no poller, no park, no monitor thread woken). Nothing
// is parsed but the status line and the framing; the first token is
// stamped at the first read that brings body bytes. It serves requests
// one at a time only: a blocked read holds its P.
type floorClient struct {
	fd     int
	head   []byte
	prefix []byte
	suffix []byte
	// body and out are the request's body and whole bytes, kept
	// between requests; buf the reply's.
	body, out, buf []byte
}

const floorAvailable = true

func newFloor(rawURL string, stream bool, tokens int) (*floorClient, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("the floor client: %w", err)
	}
	addr, err := net.ResolveTCPAddr("tcp4", u.Host)
	if err != nil {
		return nil, fmt.Errorf("the floor client: %w", err)
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("the floor client's socket: %w", err)
	}
	sa := &syscall.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())
	if err := syscall.Connect(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("the floor client's connect to %s: %w", u.Host, err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil { // as Go's own sockets
		syscall.Close(fd)
		return nil, fmt.Errorf("the floor client's TCP_NODELAY: %w", err)
	}
	c := &floorClient{fd: fd, buf: make([]byte, 256<<10),
		head: []byte("POST /v1/completions HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\nContent-Length: ")}
	c.prefix, c.suffix = bodyParts(stream, tokens)
	return c, nil
}

var (
	headEnd   = []byte("\r\n\r\n")
	lastChunk = []byte("\r\n0\r\n\r\n")
)

func (c *floorClient) do(_ context.Context, k int, firsts []int64) error {
	c.body = append(strconv.AppendInt(append(c.body[:0], c.prefix...), int64(k), 10), c.suffix...)
	out := strconv.AppendInt(append(c.out[:0], c.head...), int64(len(c.body)), 10)
	c.out = append(append(out, headEnd...), c.body...)
	if err := c.write(c.out); err != nil {
		return err
	}
	got, body, length := 0, -1, -1
	for {
		if got == len(c.buf) {
			return errors.New("the floor client: a reply over 256 KiB")
		}
		m, err := c.read(c.buf[got:])
		if err != nil {
			return err
		}
		got += m
		p := c.buf[:got]
		if body < 0 {
			i := bytes.Index(p, headEnd)
			if i < 0 {
				continue
			}
			if !bytes.HasPrefix(p, []byte("HTTP/1.1 200 ")) {
				return fmt.Errorf("the floor client: %.40q", p)
			}
			body = i + len(headEnd)
			length = contentLength(p[:i])
		}
		if got > body && firsts[k] == 0 {
			firsts[k] = time.Now().UnixNano()
		}
		if length >= 0 && got >= body+length || length < 0 && bytes.HasSuffix(p, lastChunk) {
			return nil
		}
	}
}

// contentLength is the head's Content-Length, -1 when it has none (a
// chunked body).
func contentLength(head []byte) int {
	const name = "\r\nContent-Length: "
	i := bytes.Index(head, []byte(name))
	if i < 0 {
		return -1
	}
	v := head[i+len(name):]
	if j := bytes.IndexByte(v, '\r'); j >= 0 {
		v = v[:j]
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return -1
	}
	return n
}

func (c *floorClient) write(p []byte) error {
	for len(p) > 0 {
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return fmt.Errorf("the floor client's write: %w", errno)
		}
		p = p[n:]
	}
	return nil
}

func (c *floorClient) read(p []byte) (int, error) {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
		switch {
		case errno == syscall.EINTR:
			continue
		case errno != 0:
			return 0, fmt.Errorf("the floor client's read: %w", errno)
		case n == 0:
			return 0, errors.New("the floor client: the server closed the connection")
		}
		return int(n), nil
	}
}

func (c *floorClient) close() { syscall.Close(c.fd) }
