package openaitest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"
)

// stream writes a streamed response; false closes the connection.
func (s *Server) stream(c net.Conn, bw *bufio.Writer, g generation, rec *Request, dying bool) bool {
	bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n")
	w := chunkWriter{bw: bw, split: s.b.SplitBytes}
	ids := Completion(g.seed, g.maxTokens, len(s.Pieces))
	if g.api == "chat" && s.b.RoleFrame {
		w.frame(`{"id":"chatcmpl-canned","object":"chat.completion.chunk","created":0,"model":` + strconv.Quote(g.model) +
			`,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
	}
	for k := range ids {
		at := k + 1
		switch {
		case dying && k == len(ids)/2:
			_ = bw.Flush() // the connection dies next either way
			s.kill()
			return false
		case at == s.b.ResetAt:
			_ = bw.Flush() // the connection is reset next either way
			reset(c)
			return false
		case at == s.b.StallAt:
			_ = bw.Flush()                // a stall follows whatever the flush did
			_, _ = io.Copy(io.Discard, c) // until the client or Close ends it
			return false
		case at == s.b.ErrorAt:
			w.frame(`{"error":{"message":"canned error in the stream","type":"server_error","code":500}}`)
			w.end()
			return bw.Flush() == nil
		case at == s.b.Garbage:
			w.frame(`{"choices":[{"text": oops`)
			continue
		}
		w.frame(s.contentFrame(g, ids, k))
		if k == 0 {
			s.stamp(rec) // the frame is in the kernel's hands
		}
		if w.err != nil {
			return false
		}
		if s.b.FrameGap > 0 {
			if bw.Flush() != nil || !s.sleep(s.b.FrameGap) {
				return false
			}
		}
	}
	if g.includeUsage && g.api != "generate" {
		w.frame(`{"id":"canned","object":"` + object(g.api) + `","created":0,"model":` + strconv.Quote(g.model) +
			`,"choices":[],"usage":` + usage(g.promptTokens, len(ids)) + `}`)
	}
	w.frame("[DONE]")
	w.end()
	return w.err == nil && bw.Flush() == nil
}

func object(api string) string {
	if api == "chat" {
		return "chat.completion.chunk"
	}
	return "text_completion"
}

func usage(prompt, completion int) string {
	return fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, prompt, completion, prompt+completion)
}

// contentFrame is the frame of token k.
func (s *Server) contentFrame(g generation, ids []int32, k int) string {
	var b strings.Builder
	finish := "null"
	if k == len(ids)-1 {
		finish = `"length"`
	}
	piece := strconv.Quote(s.Pieces[ids[k]])
	switch g.api {
	case "generate":
		b.WriteString(`{"text":`)
		b.WriteString(strconv.Quote(s.text(ids[:k+1])))
		b.WriteString(`,"output_ids":`)
		b.WriteString(idList(ids[:k+1]))
		fmt.Fprintf(&b, `,"meta_info":{"prompt_tokens":%d,"completion_tokens":%d,"finish_reason":%s}}`, g.promptTokens, k+1, finish)
		return b.String()
	case "chat":
		b.WriteString(`{"id":"chatcmpl-canned","object":"chat.completion.chunk","created":0,"model":`)
		b.WriteString(strconv.Quote(g.model))
		field := "content"
		if k < s.b.Reasoning {
			field = "reasoning_content"
		}
		b.WriteString(`,"choices":[{"index":0,"delta":{"` + field + `":` + piece + `},"finish_reason":` + finish)
	default:
		b.WriteString(`{"id":"cmpl-canned","object":"text_completion","created":0,"model":`)
		b.WriteString(strconv.Quote(g.model))
		b.WriteString(`,"choices":[{"index":0,"text":` + piece + `,"logprobs":null,"finish_reason":` + finish)
	}
	if s.b.TokenIDs {
		b.WriteString(`,"token_ids":[` + strconv.Itoa(int(ids[k])) + `]`)
	}
	b.WriteString("}]")
	if s.b.ZeroUsage && g.includeUsage {
		b.WriteString(`,"usage":` + usage(0, 0))
	}
	b.WriteString("}")
	return b.String()
}

// whole is a response that is not streamed.
func (s *Server) whole(g generation, ids []int32) []byte {
	text := strconv.Quote(s.text(ids))
	switch g.api {
	case "generate":
		return fmt.Appendf(nil, `{"text":%s,"output_ids":%s,"meta_info":{"prompt_tokens":%d,"completion_tokens":%d,"finish_reason":"length"}}`,
			text, idList(ids), g.promptTokens, len(ids))
	case "chat":
		msg := `"content":` + text
		if r := min(s.b.Reasoning, len(ids)); r > 0 {
			msg = `"reasoning_content":` + strconv.Quote(s.text(ids[:r])) + `,"content":` + strconv.Quote(s.text(ids[r:]))
		}
		return fmt.Appendf(nil, `{"id":"chatcmpl-canned","object":"chat.completion","created":0,"model":%q,"choices":[{"index":0,"message":{"role":"assistant",%s},"finish_reason":"length"%s}],"usage":%s}`,
			g.model, msg, s.tokenIDs(ids), usage(g.promptTokens, len(ids)))
	default:
		return fmt.Appendf(nil, `{"id":"cmpl-canned","object":"text_completion","created":0,"model":%q,"choices":[{"index":0,"text":%s,"logprobs":null,"finish_reason":"length"%s}],"usage":%s}`,
			g.model, text, s.tokenIDs(ids), usage(g.promptTokens, len(ids)))
	}
}

func (s *Server) tokenIDs(ids []int32) string {
	if !s.b.TokenIDs {
		return ""
	}
	return `,"token_ids":` + idList(ids)
}

// text is the text of ids.
func (s *Server) text(ids []int32) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(s.Pieces[id])
	}
	return b.String()
}

func idList(ids []int32) string {
	b := make([]byte, 0, 4*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(append(b, ']'))
}

// chunkWriter writes SSE frames in chunked coding: a frame a chunk, or
// with split a byte a chunk, each flushed.
type chunkWriter struct {
	bw    *bufio.Writer
	split bool
	err   error
}

func (w *chunkWriter) frame(data string) {
	w.chunk("data: " + data + "\n\n")
}

func (w *chunkWriter) chunk(p string) {
	if w.err != nil {
		return
	}
	if !w.split {
		_, _ = fmt.Fprintf(w.bw, "%x\r\n%s\r\n", len(p), p) // a buffered write: Flush reports
		w.err = w.bw.Flush()
		return
	}
	for i := range len(p) {
		w.bw.WriteString("1\r\n")
		w.bw.WriteByte(p[i])
		w.bw.WriteString("\r\n")
		if w.err = w.bw.Flush(); w.err != nil {
			return
		}
	}
}

// end writes the last chunk.
func (w *chunkWriter) end() {
	if w.err == nil {
		w.bw.WriteString("0\r\n\r\n")
	}
}

// answerText writes a chat reply of text (Behavior.Answer): streamed in
// pieces of up to 4 bytes, a frame each, or whole; usage counts the
// pieces.
func (s *Server) answerText(bw *bufio.Writer, g generation, rec *Request, text string) bool {
	var pieces []string
	for len(text) > 0 {
		n := 0
		for n < len(text) && n < 4 {
			_, size := utf8.DecodeRuneInString(text[n:])
			if n > 0 && n+size > 4 {
				break
			}
			n += size
		}
		pieces = append(pieces, text[:n])
		text = text[n:]
	}
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	if !g.stream {
		s.stamp(rec)
		return writeWhole(bw, 200, "application/json", fmt.Appendf(nil,
			`{"id":"chatcmpl-canned","object":"chat.completion","created":0,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":%s}`,
			g.model, quote(strings.Join(pieces, "")), usage(g.promptTokens, len(pieces))))
	}
	bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n")
	w := chunkWriter{bw: bw, split: s.b.SplitBytes}
	for k, p := range pieces {
		finish := "null"
		if k == len(pieces)-1 {
			finish = `"stop"`
		}
		w.frame(`{"id":"chatcmpl-canned","object":"chat.completion.chunk","created":0,"model":` + quote(g.model) +
			`,"choices":[{"index":0,"delta":{"content":` + quote(p) + `},"finish_reason":` + finish + `}]}`)
		if k == 0 {
			s.stamp(rec)
		}
	}
	if g.includeUsage {
		w.frame(`{"id":"chatcmpl-canned","object":"chat.completion.chunk","created":0,"model":` + quote(g.model) +
			`,"choices":[],"usage":` + usage(g.promptTokens, len(pieces)) + `}`)
	}
	w.frame("[DONE]")
	w.end()
	return w.err == nil && bw.Flush() == nil
}
