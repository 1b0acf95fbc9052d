package backend

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"net"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlperf-host/mlperf-host/plugins/openai/wire"
)

// EndpointError is a request's failure at one endpoint.
type EndpointError struct {
	URL string
	Err error
}

func (e *EndpointError) Error() string { return "endpoint " + e.URL + ": " + e.Err.Error() }
func (e *EndpointError) Unwrap() error { return e.Err }

// endpoint is one server: its connections and what it did.
type endpoint struct {
	url    string
	target wire.Target
	head   []byte // the request head up to Content-Length's value
	base   string // the URL's path, prefixed to every request's
	host   string // the Host header
	auth   string // the Authorization header line, or ""
	// slots holds one token per connection allowed; idle holds the
	// live connections not in use, the last released on top, so that
	// a request takes a live one before it dials.
	slots       chan struct{}
	idleMu      sync.Mutex
	idle        []*wire.Conn
	outstanding atomic.Int64

	mu       sync.Mutex
	latency  []time.Duration
	failed   int64
	firstErr string
}

func newEndpoint(u *url.URL, path, apiKey string, c Config, tlsCfg *tls.Config) *endpoint {
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	t := wire.Target{Addr: host, ConnectTimeout: c.Timeouts.Connect}
	if u.Scheme == "https" {
		cfg := tlsCfg.Clone()
		cfg.ServerName = u.Hostname()
		t.TLS = cfg
	}
	auth := authLine(apiKey)
	return &endpoint{url: u.String(), target: t, head: requestHead(u.Path+path, u.Host, auth), base: u.Path, host: u.Host,
		auth: auth, slots: make(chan struct{}, c.Connections)}
}

// conn takes a connection: an idle one, else a new one, once fewer
// than the connections allowed are in use.
func (e *endpoint) conn(ctx context.Context) (*wire.Conn, error) {
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	e.idleMu.Lock()
	if n := len(e.idle); n > 0 {
		c := e.idle[n-1]
		e.idle = e.idle[:n-1]
		e.idleMu.Unlock()
		return c, nil
	}
	e.idleMu.Unlock()
	c, err := wire.Dial(ctx, e.target)
	if err != nil {
		<-e.slots
		return nil, err
	}
	return c, nil
}

// release returns a connection: kept when reusable, else closed.
func (e *endpoint) release(c *wire.Conn, reusable bool) {
	if reusable {
		e.idleMu.Lock()
		e.idle = append(e.idle, c)
		e.idleMu.Unlock()
	} else {
		c.Close()
	}
	<-e.slots
}

// closeIdle closes the idle connections.
func (e *endpoint) closeIdle() {
	e.idleMu.Lock()
	idle := e.idle
	e.idle = nil
	e.idleMu.Unlock()
	for _, c := range idle {
		c.Close()
	}
}

// record notes one request's outcome.
func (e *endpoint) record(d time.Duration, err error) {
	e.mu.Lock()
	if err != nil {
		e.failed++
		if e.firstErr == "" {
			e.firstErr = err.Error()
		}
	} else {
		e.latency = append(e.latency, d)
	}
	e.mu.Unlock()
}

// EndpointStats is what one endpoint did since the last reset.
type EndpointStats struct {
	URL       string
	Completed int64
	Failed    int64
	Share     float64 // of every endpoint's completed requests
	// The completed requests' latencies, from sending to the last byte
	// (nearest rank).
	Min, Mean, P50, P90, P99, Max time.Duration
	FirstError                    string
}

// LatencyBasis says what the endpoints' latencies measure.
const LatencyBasis = "from sending the request to the reply's last byte"

func (e *endpoint) stats() EndpointStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := EndpointStats{URL: e.url, Completed: int64(len(e.latency)), Failed: e.failed, FirstError: e.firstErr}
	if n := len(e.latency); n > 0 {
		l := slices.Clone(e.latency)
		slices.Sort(l)
		rank := func(p float64) time.Duration { return l[max(0, int(math.Ceil(p*float64(n)))-1)] }
		var sum time.Duration
		for _, d := range l {
			sum += d
		}
		s.Min, s.Mean, s.P50, s.P90, s.P99, s.Max = l[0], sum/time.Duration(n), rank(0.5), rank(0.9), rank(0.99), l[n-1]
	}
	return s
}

func (e *endpoint) resetStats() {
	e.mu.Lock()
	e.latency, e.failed, e.firstErr = e.latency[:0], 0, ""
	e.mu.Unlock()
}

// String is a line for the log.
func (s EndpointStats) String() string {
	line := fmt.Sprintf("%s: %d requests (%.2f%%), %d failed", s.URL, s.Completed, 100*s.Share, s.Failed)
	if s.Completed > 0 {
		line += fmt.Sprintf(", p50 %v, p99 %v, max %v", s.P50, s.P99, s.Max)
	}
	if s.FirstError != "" {
		line += "; first error: " + s.FirstError
	}
	return line
}

// pick chooses the endpoint with the fewest requests outstanding, the
// ties taken in turn, and counts the request on it.
func pick(eps []*endpoint, turn *atomic.Uint64) *endpoint {
	start := int(turn.Add(1) % uint64(len(eps)))
	best := eps[start]
	bestN := best.outstanding.Load()
	for i := 1; i < len(eps) && bestN > 0; i++ {
		e := eps[(start+i)%len(eps)]
		if n := e.outstanding.Load(); n < bestN {
			best, bestN = e, n
		}
	}
	best.outstanding.Add(1)
	return best
}
