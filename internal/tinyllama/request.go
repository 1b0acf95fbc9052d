package tinyllama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// CompletionRequest is the request the tests send a server of this
// model: a POST of endpoint's /v1/completions for maxTokens greedy tokens
// after prompt, streamed as server-sent events with the usage in the last
// frame, or not.
func CompletionRequest(ctx context.Context, endpoint, model, prompt string, maxTokens int, stream bool) (*http.Request, error) {
	body, err := json.Marshal(map[string]any{"model": model, "prompt": prompt, "max_tokens": maxTokens, "temperature": 0,
		"stream": stream, "stream_options": map[string]bool{"include_usage": stream}})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/v1/completions", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("completion request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// Completion is a server's answer to a [CompletionRequest] not streamed.
type Completion struct {
	Text             string
	CompletionTokens int    // the usage's count
	FinishReason     string // "length" when max_tokens ended it
}

// Complete sends a [CompletionRequest] not streamed with client and
// reads its one choice.
//
// # Errors
//
// The client's, a status other than 200 (with the start of the body),
// and a reply that is not one choice in JSON.
func Complete(ctx context.Context, client *http.Client, endpoint, model, prompt string, maxTokens int) (Completion, error) {
	req, err := CompletionRequest(ctx, endpoint, model, prompt, maxTokens, false)
	if err != nil {
		return Completion{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Completion{}, fmt.Errorf("completion: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return Completion{}, fmt.Errorf("completion: %s: %s: %q", endpoint, resp.Status, b)
	}
	var reply struct {
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		return Completion{}, fmt.Errorf("completion: %s: %w", endpoint, err)
	}
	if len(reply.Choices) != 1 {
		return Completion{}, fmt.Errorf("completion: %s: %d choices, want 1", endpoint, len(reply.Choices))
	}
	return Completion{Text: reply.Choices[0].Text, CompletionTokens: reply.Usage.CompletionTokens, FinishReason: reply.Choices[0].FinishReason}, nil
}
