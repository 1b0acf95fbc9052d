package host

import (
	"log/slog"
	"net"
	"sync"
)

// limitListener bounds the connections open at once, in all and per IP
// address: a connection past a bound is closed as it is accepted, before
// any handshake, and logged. Accept errors (out of descriptors) are
// logged too, then returned to the server, which retries.
type limitListener struct {
	net.Listener
	max, perAddr int
	log          *slog.Logger

	mu     sync.Mutex
	open   int
	byAddr map[string]int
}

func newLimitListener(ln net.Listener, maxConns, perAddr int, log *slog.Logger) *limitListener {
	return &limitListener{Listener: ln, max: maxConns, perAddr: perAddr, log: log, byAddr: map[string]int{}}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			l.log.Error("remote plugin: cannot accept a connection", "err", err)
			return nil, err
		}
		ip := remoteIP(c)
		if why := l.admit(ip); why != "" {
			l.log.Warn("remote plugin: refused a connection: "+why, "from", c.RemoteAddr().String())
			_ = c.Close()
			continue
		}
		return &limitedConn{Conn: c, l: l, ip: ip}, nil
	}
}

// admit counts a connection from ip, or says which bound it passes.
func (l *limitListener) admit(ip string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.open >= l.max:
		return "too many connections"
	case l.byAddr[ip] >= l.perAddr:
		return "too many connections from one address"
	}
	l.open++
	l.byAddr[ip]++
	return ""
}

func (l *limitListener) done(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.byAddr[ip]--; l.byAddr[ip] <= 0 {
		delete(l.byAddr, ip)
	}
}

func remoteIP(c net.Conn) string {
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return host
}

// limitedConn gives its place back once closed.
type limitedConn struct {
	net.Conn
	l    *limitListener
	ip   string
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.done(c.ip) })
	return err
}
