package openaitest

import (
	"encoding/json"
	"fmt"
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
}

func parseGeneration(path string, body []byte) (generation, error) {
	var r struct {
		Model               string                     `json:"model"`
		Prompt              json.RawMessage            `json:"prompt"`
		Messages            []struct{ Content string } `json:"messages"`
		InputIDs            []int32                    `json:"input_ids"`
		Text                string                     `json:"text"`
		MaxTokens           int                        `json:"max_tokens"`
		MaxCompletionTokens int                        `json:"max_completion_tokens"`
		Stream              bool                       `json:"stream"`
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
		last := r.Messages[len(r.Messages)-1].Content
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

func pick(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
