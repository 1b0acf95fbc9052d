package backend

import (
	"encoding/json"
	"strconv"
	"strings"
)

// body is a request body cut around its prompt: prefix + prompt +
// suffix, the prompt's part built once per sample.
type body struct {
	prefix, suffix []byte
}

// path is the API's request path under an endpoint's base URL.
func (c Config) path() string {
	switch c.API {
	case APIChat:
		return "/v1/chat/completions"
	case APISGLang:
		return "/generate"
	}
	return "/v1/completions"
}

// sglangMaxTokens is SGLang's own default, sent when the benchmark's
// reference sets no bound (/generate's sampling_params always carry one).
const sglangMaxTokens = 128

// newBody builds the parts of every request around the prompt; a
// maxTokens of 0 or less sends no bound (the server's own).
func (c Config) newBody(model string, maxTokens, minTokens int) body {
	var pre, suf strings.Builder
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	pre.WriteByte('{')
	if c.API != APISGLang {
		pre.WriteString(`"model":` + quote(model) + ",")
	}
	var stop string
	if len(c.Stop) > 0 {
		b, _ := json.Marshal(c.Stop)
		stop = string(b)
	}
	switch c.API {
	case APISGLang:
		pre.WriteString(`"input_ids":`)
		suf.WriteString(`,"sampling_params":{"max_new_tokens":` + strconv.Itoa(max(maxTokens, sglangMaxTokens)))
		if minTokens > 0 {
			suf.WriteString(`,"min_new_tokens":` + strconv.Itoa(minTokens))
		}
		suf.WriteString(`,"temperature":` + num(c.Temperature))
		if c.TopP >= 0 {
			suf.WriteString(`,"top_p":` + num(c.TopP))
		}
		if c.TopK >= 0 {
			suf.WriteString(`,"top_k":` + strconv.Itoa(c.TopK))
		}
		if stop != "" {
			suf.WriteString(`,"stop":` + stop)
		}
		suf.WriteString("}")
	default:
		if c.API == APIChat {
			pre.WriteString(`"messages":`)
			if maxTokens > 0 {
				suf.WriteString(`,"max_completion_tokens":` + strconv.Itoa(maxTokens))
			}
		} else {
			pre.WriteString(`"prompt":`)
		}
		if maxTokens > 0 {
			suf.WriteString(`,"max_tokens":` + strconv.Itoa(maxTokens))
		}
		if minTokens > 0 {
			suf.WriteString(`,"min_tokens":` + strconv.Itoa(minTokens))
		}
		suf.WriteString(`,"temperature":` + num(c.Temperature))
		if c.TopP >= 0 {
			suf.WriteString(`,"top_p":` + num(c.TopP))
		}
		if c.TopK >= 0 {
			suf.WriteString(`,"top_k":` + strconv.Itoa(c.TopK))
		}
		if stop != "" {
			suf.WriteString(`,"stop":` + stop)
		}
		if c.TokenIDs == IDsServer {
			suf.WriteString(`,"return_token_ids":true`)
		}
		if c.Stream {
			suf.WriteString(`,"stream_options":{"include_usage":true}`)
		}
	}
	suf.WriteString(`,"stream":` + strconv.FormatBool(c.Stream))
	if c.Extra != "" {
		suf.WriteString("," + c.Extra)
	}
	suf.WriteByte('}')
	return body{prefix: []byte(pre.String()), suffix: []byte(suf.String())}
}

// idsJSON is a JSON list of token ids.
func idsJSON(ids []int32) []byte {
	b := make([]byte, 0, 6*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return append(b, ']')
}

// userMessages is a chat request's messages for a text prompt: one user
// message.
func userMessages(text string) []byte {
	b := append([]byte(`[{"role":"user","content":`), textJSON(text)...)
	return append(b, "}]"...)
}

// textJSON is a JSON string.
func textJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// authLine is the Authorization header line of a bearer token, "" for
// no key.
func authLine(apiKey string) string {
	if apiKey == "" {
		return ""
	}
	return "Authorization: Bearer " + apiKey + "\r\n"
}

// requestHead is an HTTP/1.1 request head up to its Content-Length
// value: the request line, Host, the content type, auth (an
// [authLine]).
func requestHead(path, host, auth string) []byte {
	return []byte("POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: mlperf-host-openai\r\nContent-Type: application/json\r\nAccept: */*\r\n" +
		auth + "Content-Length: ")
}

// appendRequest appends a whole request: head, length, body.
func appendRequest(dst, head []byte, b body, prompt []byte) []byte {
	dst = append(dst, head...)
	dst = strconv.AppendInt(dst, int64(len(b.prefix)+len(prompt)+len(b.suffix)), 10)
	dst = append(dst, "\r\n\r\n"...)
	dst = append(dst, b.prefix...)
	dst = append(dst, prompt...)
	return append(dst, b.suffix...)
}
