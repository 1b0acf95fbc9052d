package backend

import (
	"bytes"
	"errors"
	"fmt"

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
	onFirst  func(ids []int32)
}

func (r *reply) reset() {
	r.text, r.srv, r.first, r.body, r.scratch = r.text[:0], r.srv[:0], r.first[:0], r.body[:0], r.scratch[:0]
	r.srvSeen, r.hasFirst, r.done, r.status = false, false, false, 0
	r.sse = wire.SSE{}
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
	if e, ok, err := wire.Field(data, "error"); err != nil {
		return err
	} else if ok && !wire.IsNull(e) {
		msg := e
		if m, ok, _ := wire.Field(e, "message"); ok {
			msg = m
		}
		if len(msg) > 0 && msg[0] == '"' {
			msg, _ = wire.AppendString(nil, msg)
		}
		return &ServerError{Message: string(msg)}
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
			r.onFirst(r.first)
		}
	}
	r.text = append(r.text, piece...)
	if r.srvSeen {
		r.srv = append(r.srv, ids...)
	}
	return nil
}

// parse reads a frame's new content, its new token ids and whether it
// ends the reply. The content is in r.scratch.
func (r *reply) parse(data []byte) (piece []byte, ids []int32, finished bool, err error) {
	r.scratch = r.scratch[:0]
	if r.api == APISGLang {
		return r.parseSGLang(data)
	}
	choice, ok, err := wire.Path(data, "choices")
	if err != nil || !ok {
		return nil, nil, false, err // a usage frame has no choice
	}
	if choice, ok, err = wire.Index(choice, 0); err != nil || !ok {
		return nil, nil, false, err
	}
	holder := choice
	if r.api == APIChat {
		for _, k := range []string{"delta", "message"} {
			if d, ok, err := wire.Field(choice, k); err != nil {
				return nil, nil, false, err
			} else if ok {
				holder = d
				break
			}
		}
	}
	for _, k := range contentKeys(r.api) {
		v, ok, err := wire.Field(holder, k)
		if err != nil {
			return nil, nil, false, err
		}
		if ok && !wire.IsNull(v) {
			if r.scratch, err = wire.AppendString(r.scratch, v); err != nil {
				return nil, nil, false, err
			}
		}
	}
	if v, ok, err := wire.Field(choice, "token_ids"); err != nil {
		return nil, nil, false, err
	} else if ok && !wire.IsNull(v) {
		if ids, err = wire.AppendInts(nil, v); err != nil {
			return nil, nil, false, err
		}
	}
	fin, ok, err := wire.Field(choice, "finish_reason")
	if err != nil {
		return nil, nil, false, err
	}
	return r.scratch, ids, ok && !wire.IsNull(fin), nil
}

// contentKeys are the fields whose text is output: a chat's reasoning
// and content, a completion's text.
func contentKeys(api string) []string {
	if api == APIChat {
		return []string{"reasoning_content", "reasoning", "content"}
	}
	return []string{"text"}
}

// parseSGLang reads a /generate frame, whose text and output_ids are
// the whole output so far (SGLang's default) or only the new part.
func (r *reply) parseSGLang(data []byte) (piece []byte, ids []int32, finished bool, err error) {
	if v, ok, err := wire.Field(data, "text"); err != nil {
		return nil, nil, false, err
	} else if ok {
		if r.scratch, err = wire.AppendString(r.scratch, v); err != nil {
			return nil, nil, false, err
		}
	}
	piece = bytes.TrimPrefix(r.scratch, r.text)
	if v, ok, err := wire.Field(data, "output_ids"); err != nil {
		return nil, nil, false, err
	} else if ok && !wire.IsNull(v) {
		all, err := wire.AppendInts(nil, v)
		if err != nil {
			return nil, nil, false, err
		}
		ids = all
		if len(all) >= len(r.srv) && int32sEqual(all[:len(r.srv)], r.srv) {
			ids = all[len(r.srv):]
		}
	}
	fin, ok, err := wire.Path(data, "meta_info", "finish_reason")
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
// reports), so that the first token is always the output's first.
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
	out := append([]int32(nil), r.first...)
	if len(all) > len(r.first) {
		out = append(out, all[len(r.first):]...)
	}
	return out, nil
}
