package openaitest

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Behavior is how a [Server] answers. The zero value answers well:
// chunked SSE, one frame per token, usage in a last frame of its own.
type Behavior struct {
	// Tokens is each completion's length; 0 takes the request's
	// max_tokens (16 when it has none).
	Tokens int
	// SplitBytes sends every byte of a body as a chunk and a write of
	// its own.
	SplitBytes bool
	// RoleFrame starts a chat stream with a frame carrying only the
	// role (and an empty content), as vLLM and Ollama do.
	RoleFrame bool
	// ZeroUsage puts a usage of zeros in every frame before the last
	// (Ollama's habit with include_usage).
	ZeroUsage bool
	// TokenIDs sends each frame's token ids (vLLM's token_ids with
	// return_token_ids; /generate always sends output_ids).
	TokenIDs bool
	// Reasoning sends a chat stream's first Reasoning tokens as
	// delta.reasoning_content.
	Reasoning int
	// ErrorAt, when positive, sends an error frame in place of content
	// frame ErrorAt (1-based) and ends the stream.
	ErrorAt int
	// StallAt, when positive, stops sending before content frame
	// StallAt, keeping the connection open until the client gives up.
	StallAt int
	// ResetAt, when positive, resets the connection before content
	// frame ResetAt.
	ResetAt int
	// Garbage, when positive, sends a frame that is not JSON in place of
	// content frame Garbage.
	Garbage int
	// SlowStart waits before the response head.
	SlowStart time.Duration
	// FrameGap waits between frames.
	FrameGap time.Duration
	// Status, when not 0, answers every generation request with it and
	// a JSON error body.
	Status int
	// DieAfter, when positive, kills the server (listener and every
	// connection, reset) once it has started DieAfter generation
	// requests, in the middle of the last one's stream.
	DieAfter int
	// NotReadyFor answers /health and /v1/models with 503 for this long
	// after the server starts.
	NotReadyFor time.Duration
	// TLS, when set, serves HTTPS with it (a client certificate asked for
	// as it says); URL is then https://.
	TLS *tls.Config
	// Authorization, when set, is the Authorization header every request
	// must carry; others get 401.
	Authorization string
	// Answer, when set, is a chat request's reply: the text it returns
	// for the request's messages (their JSON), sent in pieces of up to 4
	// bytes (whole UTF-8 characters), a piece a token and a frame.
	Answer func(messages []byte) string
}

// Server is a canned OpenAI-compatible HTTP/1.1 server on loopback.
type Server struct {
	// Pieces are the tokens' texts, by id.
	Pieces []string
	// Model is the id /v1/models lists.
	Model string

	b       Behavior
	ln      net.Listener
	started time.Time
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	log   []*Request

	generations atomic.Int64
	accepted    atomic.Int64
	dead        atomic.Bool
}

// Request is what the server recorded of one generation request.
type Request struct {
	Path string
	// Body is the request's JSON body.
	Body []byte
	// FirstFrame is when the first content frame was written (zero when
	// none was).
	FirstFrame time.Time
}

// DefaultPieces are 64 tokens: "<unk>", "<s>", "</s>", then the letters
// and the digits 0 to 8, one character each, so that any text of them
// encodes back to the same ids ([WriteTokenizer]).
func DefaultPieces() []string {
	p := []string{"<unk>", "<s>", "</s>"}
	for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345678" {
		p = append(p, string(r))
	}
	return p
}

// Start starts a server on 127.0.0.1 with b. Close stops it, and so
// does the end of ctx.
func Start(ctx context.Context, b Behavior) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if b.TLS != nil {
		ln = tls.NewListener(ln, b.TLS)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{Pieces: DefaultPieces(), Model: "canned", b: b, ln: ln, started: time.Now(), ctx: ctx, cancel: cancel,
		conns: map[net.Conn]struct{}{}}
	s.wg.Go(s.accept)
	s.wg.Go(func() {
		<-ctx.Done()
		s.kill()
	})
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:PORT (https:// with
// TLS).
func (s *Server) URL() string {
	if s.b.TLS != nil {
		return "https://" + s.ln.Addr().String()
	}
	return "http://" + s.ln.Addr().String()
}

// Requests returns what the server recorded of each generation request.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.log))
	for i, r := range s.log {
		out[i] = *r
	}
	return out
}

// Accepted is how many connections the server has accepted.
func (s *Server) Accepted() int64 { return s.accepted.Load() }

// Close stops the server, resets its connections and waits for its
// goroutines.
func (s *Server) Close() error {
	s.kill()
	s.wg.Wait()
	return nil
}

// kill closes the listener and resets every connection.
func (s *Server) kill() {
	s.dead.Store(true)
	s.cancel()
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		reset(c)
	}
	s.mu.Unlock()
}

func reset(c net.Conn) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.dead.Load() {
			s.mu.Unlock()
			reset(c)
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.accepted.Add(1)
		s.wg.Go(func() {
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			s.serve(c)
		})
	}
}

// serve answers the requests of one keep-alive connection.
func (s *Server) serve(c net.Conn) {
	br := bufio.NewReader(c)
	bw := bufio.NewWriterSize(c, 64<<10)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		if !s.answer(c, bw, req, body) {
			return
		}
	}
}

// answer writes the response to one request; false closes the
// connection.
func (s *Server) answer(c net.Conn, bw *bufio.Writer, req *http.Request, body []byte) bool {
	if s.b.Authorization != "" && req.Header.Get("Authorization") != s.b.Authorization {
		return writeWhole(bw, 401, "application/json", []byte(`{"error":{"message":"bad or missing API key"}}`))
	}
	switch req.URL.Path {
	case LogPath:
		return writeWhole(bw, 200, "application/json", s.takeLog())
	case "/health", "/v1/models":
		if time.Since(s.started) < s.b.NotReadyFor {
			return writeWhole(bw, 503, "application/json", []byte(`{"error":"loading"}`))
		}
		if req.URL.Path == "/health" {
			return writeWhole(bw, 200, "application/json", nil)
		}
		m, _ := json.Marshal(s.Model)
		return writeWhole(bw, 200, "application/json", []byte(`{"object":"list","data":[{"id":`+string(m)+`,"object":"model"}]}`))
	case "/v1/completions", "/v1/chat/completions", "/generate":
	default:
		return writeWhole(bw, 404, "application/json", []byte(`{"error":"not found"}`))
	}
	n := s.generations.Add(1)
	rec := s.record(Request{Path: req.URL.Path, Body: body})
	if s.b.Status != 0 {
		return writeWhole(bw, s.b.Status, "application/json", []byte(`{"error":{"message":"canned failure","code":`+strconv.Itoa(s.b.Status)+`}}`))
	}
	g, err := parseGeneration(req.URL.Path, body)
	if err != nil {
		return writeWhole(bw, 400, "application/json", []byte(`{"error":{"message":`+strconv.Quote(err.Error())+`}}`))
	}
	if s.b.Tokens > 0 {
		g.maxTokens = s.b.Tokens
	}
	if s.b.SlowStart > 0 && !s.sleep(s.b.SlowStart) {
		return false
	}
	if s.b.Answer != nil && g.api == "chat" {
		return s.answerText(bw, g, rec, s.b.Answer(g.messages))
	}
	dying := s.b.DieAfter > 0 && n == int64(s.b.DieAfter)
	if !g.stream {
		ids := Completion(g.seed, g.maxTokens, len(s.Pieces))
		s.stamp(rec)
		return writeWhole(bw, 200, "application/json", s.whole(g, ids))
	}
	return s.stream(c, bw, g, rec, dying)
}

func (s *Server) record(r Request) *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, &r)
	return &r
}

// LogPath is where a client in another process reads, as JSON, what the
// server recorded of each generation request since the last read (a
// [LogEntry] each), and clears it: the first frame's send time beside
// the client's own first-token time.
const LogPath = "/canned/log"

// LogEntry is one generation request in the log [LogPath] serves.
type LogEntry struct {
	Path string `json:"path"`
	Body string `json:"body"`
	// FirstFrame is the first content frame's send time, Unix
	// nanoseconds; 0 when none was sent.
	FirstFrame int64 `json:"first_frame_ns"`
}

// takeLog is the log as JSON, cleared.
func (s *Server) takeLog() []byte {
	s.mu.Lock()
	log := s.log
	s.log = nil
	s.mu.Unlock()
	out := make([]LogEntry, len(log))
	for i, r := range log {
		out[i] = LogEntry{Path: r.Path, Body: string(r.Body)}
		if !r.FirstFrame.IsZero() {
			out[i].FirstFrame = r.FirstFrame.UnixNano()
		}
	}
	b, _ := json.Marshal(out) // strings and numbers: no error
	return b
}

func (s *Server) stamp(r *Request) {
	now := time.Now()
	s.mu.Lock()
	if r.FirstFrame.IsZero() {
		r.FirstFrame = now
	}
	s.mu.Unlock()
}

// sleep waits d unless the server stops first.
func (s *Server) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// Completion is the token ids the server generates for a prompt whose
// seed is seed: n tokens of a vocabulary of size vocab.
func Completion(seed, n, vocab int) []int32 {
	ids := make([]int32, n)
	for k := range ids {
		ids[k] = int32(3 + (seed+1+k)%(vocab-3))
	}
	return ids
}

// writeWhole writes a response with a Content-Length body.
func writeWhole(bw *bufio.Writer, status int, ctype string, body []byte) bool {
	_, _ = fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", status, http.StatusText(status), ctype, len(body))
	_, _ = bw.Write(body) // buffered: Flush reports the error
	return bw.Flush() == nil
}
