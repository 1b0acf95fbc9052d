package openaitest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// generation is what the server reads of a request.
type generation struct {
	api          string // "completions", "chat" or "generate"
	seed         int
	maxTokens    int
	stream       bool
	includeUsage bool
	model        string
	promptTokens int
	messages     json.RawMessage // a chat request's
}

func parseGeneration(path string, body []byte) (generation, error) {
	var r struct {
		Model               string                              `json:"model"`
		Prompt              json.RawMessage                     `json:"prompt"`
		Messages            []struct{ Content json.RawMessage } `json:"messages"`
		InputIDs            []int32                             `json:"input_ids"`
		Text                string                              `json:"text"`
		MaxTokens           int                                 `json:"max_tokens"`
		MaxCompletionTokens int                                 `json:"max_completion_tokens"`
		Stream              bool                                `json:"stream"`
		StreamOptions       struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		SamplingParams struct {
			MaxNewTokens int `json:"max_new_tokens"`
		} `json:"sampling_params"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return generation{}, fmt.Errorf("request body: %w", err)
	}
	g := generation{stream: r.Stream, includeUsage: r.StreamOptions.IncludeUsage, model: r.Model, maxTokens: 16}
	var raw struct {
		Messages json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(body, &raw) // the body decoded above
	g.messages = raw.Messages
	switch path {
	case "/v1/completions":
		g.api, g.maxTokens = "completions", pick(r.MaxTokens, g.maxTokens)
		var ids []int32
		var text string
		switch {
		case json.Unmarshal(r.Prompt, &ids) == nil && len(ids) > 0:
			g.seed, g.promptTokens = int(ids[len(ids)-1]), len(ids)
		case json.Unmarshal(r.Prompt, &text) == nil:
			g.seed, g.promptTokens = len(text), len(text)
		default:
			return g, fmt.Errorf("prompt is neither token ids nor text")
		}
	case "/v1/chat/completions":
		g.api, g.maxTokens = "chat", pick(r.MaxCompletionTokens, pick(r.MaxTokens, g.maxTokens))
		if len(r.Messages) == 0 {
			return g, fmt.Errorf("no messages")
		}
		last, err := contentText(r.Messages[len(r.Messages)-1].Content)
		if err != nil {
			return g, err
		}
		g.seed, g.promptTokens = len(last), len(last)
	default:
		g.api, g.maxTokens = "generate", pick(r.SamplingParams.MaxNewTokens, g.maxTokens)
		switch {
		case len(r.InputIDs) > 0:
			g.seed, g.promptTokens = int(r.InputIDs[len(r.InputIDs)-1]), len(r.InputIDs)
		case r.Text != "":
			g.seed, g.promptTokens = len(r.Text), len(r.Text)
		default:
			return g, fmt.Errorf("neither input_ids nor text")
		}
	}
	return g, nil
}

// contentText is a chat message's text: its content string, or its text
// parts joined; an image_url part must be a base64 data URL of an image.
func contentText(content json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(content, &parts); err != nil {
		return "", fmt.Errorf("message content is neither text nor a list of parts: %w", err)
	}
	var b strings.Builder
	for i, p := range parts {
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "image_url":
			if p.ImageURL == nil {
				return "", fmt.Errorf("content part %d: image_url without its url", i)
			}
			head, data, ok := strings.Cut(p.ImageURL.URL, ",")
			if !ok || !strings.HasPrefix(head, "data:image/") || !strings.HasSuffix(head, ";base64") {
				return "", fmt.Errorf("content part %d: image_url is not a data:image/...;base64, URL", i)
			}
			if _, err := base64.StdEncoding.DecodeString(data); err != nil {
				return "", fmt.Errorf("content part %d: image_url's data: %w", i, err)
			}
		default:
			return "", fmt.Errorf("content part %d: type %q", i, p.Type)
		}
	}
	return b.String(), nil
}

func pick(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
