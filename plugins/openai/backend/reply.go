package backend

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/mlperf-host/mlperf-host/plugins/openai/wire"
	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// ServerError is an error the server reported: a status other than 200,
// or an error object in the stream.
type ServerError struct {
	Status  int // 0 for an error in the stream
	Message string
}

func (e *ServerError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
	}
	return "error in the stream: " + e.Message
}

// errNoIDs: token_ids=server, and the server sent none.
var errNoIDs = errors.New("the server sent no token ids (token_ids=server: does it support return_token_ids?)")

// maxErrorBody bounds what an error reply's message keeps.
const maxErrorBody = 512

// reply reads one response: each SSE frame (or the one JSON body) into
// the text and token ids so far, noting the first content.
type reply struct {
	api      string
	ids      string // token_ids option
	tok      *tokenizer.Tokenizer
	text     []byte  // the content so far
	srv      []int32 // the server's ids so far
	srvSeen  bool
	first    []int32 // the first content's ids, set with hasFirst
	hasFirst bool
	done     bool // [DONE] or a finish reason
	status   int
	body     []byte // a non-streamed or an error body
	sse      wire.SSE
	scratch  []byte
	onFirst  func(ids []int32, text []byte)
	// usage is the reply's usage.completion_tokens; -1 when it has none.
	usage int64
}

func (r *reply) reset() {
	r.text, r.srv, r.first, r.body, r.scratch = r.text[:0], r.srv[:0], r.first[:0], r.body[:0], r.scratch[:0]
	r.srvSeen, r.hasFirst, r.done, r.status = false, false, false, 0
	r.usage = -1
	r.sse.Reset()
}

// feed takes a piece of the body.
func (r *reply) feed(h *wire.Head, p []byte) error {
	r.status = h.Status
	if h.Status != 200 || !h.EventStream {
		if len(r.body)+len(p) > wire.MaxFrame {
			return fmt.Errorf("%w: reply longer than %d bytes", wire.ErrMalformed, wire.MaxFrame)
		}
		r.body = append(r.body, p...)
		return nil
	}
	return r.sse.Feed(p, r.frame)
}

// end checks the reply once the body is read.
func (r *reply) end(h wire.Head) error {
	if h.Status != 200 {
		msg := r.body
		if m, ok, _ := wire.Path(r.body, "error", "message"); ok {
			msg, _ = wire.AppendString(nil, m)
		} else if m, ok, _ := wire.Field(r.body, "error"); ok && len(m) > 0 && m[0] == '"' {
			msg, _ = wire.AppendString(nil, m)
		}
		if len(msg) > maxErrorBody {
			msg = msg[:maxErrorBody]
		}
		return &ServerError{Status: h.Status, Message: string(bytes.TrimSpace(msg))}
	}
	if !h.EventStream {
		r.onFirst = nil // the whole reply's first token, reported by the caller
		if err := r.frame(r.body); err != nil {
			return err
		}
		r.done = true
	}
	if r.sse.Pending() || !r.done {
		return fmt.Errorf("%w: the stream ended before its last frame", wire.ErrMalformed)
	}
	return nil
}

// frame reads one frame's data (or a whole reply).
func (r *reply) frame(data []byte) error {
	if string(data) == "[DONE]" {
		r.done = true
		return nil
	}
	piece, ids, finished, err := r.parse(data)
	if err != nil {
		return err
	}
	if finished {
		r.done = true
	}
	if len(ids) > 0 && r.ids != IDsTokenizer {
		r.srvSeen = true
	}
	if len(piece) == 0 {
		if r.srvSeen {
			r.srv = append(r.srv, ids...)
		}
		return nil
	}
	if !r.hasFirst {
		r.hasFirst = true
		switch {
		case r.srvSeen && len(ids) > 0:
			r.first = append(r.first[:0], ids...)
		case r.tok != nil:
			r.first = r.tok.AppendEncode(r.first[:0], string(piece), tokenizer.AddSpecialTokens(false))
		}
		if r.onFirst != nil {
			r.onFirst(r.first, piece)
		}
	}
	r.text = append(r.text, piece...)
	if r.srvSeen {
		r.srv = append(r.srv, ids...)
	}
	return nil
}

// streamError is the error a frame carries, nil when none.
func streamError(e []byte) error {
	if e == nil || wire.IsNull(e) {
		return nil
	}
	msg := e
	if m, ok, _ := wire.Field(e, "message"); ok {
		msg = m
	}
	if len(msg) > 0 && msg[0] == '"' {
		msg, _ = wire.AppendString(nil, msg)
	}
	return &ServerError{Message: string(msg)}
}

// The keys each frame is read for, in one pass over each object.
var (
	topKeys    = []string{"error", "choices", "usage"}
	choiceKeys = []string{"text", "delta", "message", "token_ids", "finish_reason"}
	deltaKeys  = []string{"reasoning_content", "reasoning", "content"}
	sglangKeys = []string{"error", "text", "output_ids", "meta_info"}
)

// parse reads a frame's new content, its new token ids and whether it
// ends the reply. The content is in r.scratch; an error object in the
// frame is a [ServerError].
func (r *reply) parse(data []byte) (piece []byte, ids []int32, finished bool, err error) {
	r.scratch = r.scratch[:0]
	if r.api == APISGLang {
		return r.parseSGLang(data)
	}
	var top [3][]byte
	if err := wire.Fields(data, topKeys, top[:]); err != nil {
		return nil, nil, false, err
	}
	if err := streamError(top[0]); err != nil {
		return nil, nil, false, err
	}
	if u := top[2]; u != nil && !wire.IsNull(u) {
		if n, ok, err := wire.Field(u, "completion_tokens"); err == nil && ok {
			if v, err := strconv.ParseInt(string(n), 10, 64); err == nil && v >= 0 {
				r.usage = v
			}
		}
	}
	choice, ok, err := wire.Index(top[1], 0)
	if err != nil || !ok {
		return nil, nil, false, err // a usage frame has no choice
	}
	var c [5][]byte // text, delta, message, token_ids, finish_reason
	if err := wire.Fields(choice, choiceKeys, c[:]); err != nil {
		return nil, nil, false, err
	}
	if r.api == APIChat {
		holder := c[1]
		if holder == nil {
			holder = c[2]
		}
		var d [3][]byte
		if err := wire.Fields(holder, deltaKeys, d[:]); err != nil {
			return nil, nil, false, err
		}
		for _, v := range d {
			if r.scratch, err = appendText(r.scratch, v); err != nil {
				return nil, nil, false, err
			}
		}
	} else if r.scratch, err = appendText(r.scratch, c[0]); err != nil {
		return nil, nil, false, err
	}
	if v := c[3]; v != nil && !wire.IsNull(v) {
		if ids, err = wire.AppendInts(nil, v); err != nil {
			return nil, nil, false, err
		}
	}
	return r.scratch, ids, c[4] != nil && !wire.IsNull(c[4]), nil
}

// appendText appends the text of v, a JSON string, absent or null.
func appendText(dst, v []byte) ([]byte, error) {
	if v == nil || wire.IsNull(v) {
		return dst, nil
	}
	return wire.AppendString(dst, v)
}

// parseSGLang reads a /generate frame, whose text and output_ids are
// the whole output so far (SGLang's default) or only the new part.
func (r *reply) parseSGLang(data []byte) (piece []byte, ids []int32, finished bool, err error) {
	var f [4][]byte // error, text, output_ids, meta_info
	if err := wire.Fields(data, sglangKeys, f[:]); err != nil {
		return nil, nil, false, err
	}
	if err := streamError(f[0]); err != nil {
		return nil, nil, false, err
	}
	if r.scratch, err = appendText(r.scratch, f[1]); err != nil {
		return nil, nil, false, err
	}
	piece = bytes.TrimPrefix(r.scratch, r.text)
	if v := f[2]; v != nil && !wire.IsNull(v) {
		all, err := wire.AppendInts(nil, v)
		if err != nil {
			return nil, nil, false, err
		}
		ids = all
		if len(all) >= len(r.srv) && int32sEqual(all[:len(r.srv)], r.srv) {
			ids = all[len(r.srv):]
		}
	}
	fin, ok, err := wire.Field(f[3], "finish_reason")
	if err != nil {
		return nil, nil, false, err
	}
	return piece, ids, ok && !wire.IsNull(fin), nil
}

func int32sEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// output is every output token id: the server's, or the first content's
// ids and then the whole text's ids after as many (what NVIDIA's harness
// reports), so that the first token is always the output's first. It
// may be r's own, valid until r is reset.
func (r *reply) output() ([]int32, error) {
	if r.srvSeen {
		return r.srv, nil
	}
	if r.ids == IDsServer {
		return nil, errNoIDs
	}
	if r.tok == nil {
		return nil, errors.New("the server sent text without token ids and no tokenizer is set (option tokenizer)")
	}
	all := r.tok.Encode(string(r.text), tokenizer.AddSpecialTokens(false))
	if len(all) < len(r.first) {
		return r.first, nil
	}
	copy(all, r.first) // the first content's ids, then the rest's
	return all, nil
}
