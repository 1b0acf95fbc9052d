package backend

import (
	"context"
	"fmt"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/plugins/openai/wire"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// readyPoll is the first wait between readiness checks; it doubles up to
// a second.
const readyPoll = 20 * time.Millisecond

// ready waits until every endpoint answers GET /v1/models (or, where
// that is not found, GET /health) with 200, within the ready timeout,
// and returns the first model the first endpoint lists.
func (b *Backend) ready(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeouts.Ready)
	defer cancel()
	var model string
	for i, e := range b.eps {
		wait := readyPoll
		var why error // the last probe's error, but one the ready bound cut short
		for {
			m, err := e.probe(ctx, b.cfg.API)
			if err == nil {
				if i == 0 {
					model = m
				}
				break
			}
			if why == nil || ctx.Err() == nil {
				why = err
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return "", sdk.Errorf(abi.Unavailable, "endpoint %s is not ready after %v: %v", e.url, b.cfg.Timeouts.Ready, why)
			case <-t.C:
			}
			wait = min(2*wait, time.Second)
		}
	}
	return model, nil
}

// probe asks an endpoint once whether it is ready.
func (e *endpoint) probe(ctx context.Context, api string) (string, error) {
	paths := []string{"/v1/models", "/health"}
	if api == APISGLang {
		paths = []string{"/health", "/v1/models"}
	}
	var last error
	for _, p := range paths {
		status, body, err := e.get(ctx, p)
		switch {
		case err != nil:
			return "", err
		case status == 200:
			return firstModel(body), nil
		case status == 404 || status == 405:
			last = fmt.Errorf("GET %s: HTTP %d", p, status)
			continue
		default:
			return "", fmt.Errorf("GET %s: HTTP %d", p, status)
		}
	}
	return "", last
}

// get makes one GET on a connection of its own.
func (e *endpoint) get(ctx context.Context, path string) (int, []byte, error) {
	c, err := wire.Dial(ctx, e.target)
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	req := "GET " + e.base + path + " HTTP/1.1\r\nHost: " + e.host + "\r\nUser-Agent: mlperf-host-openai\r\nAccept: application/json\r\nConnection: close\r\n" + e.auth + "\r\n"
	var body []byte
	h, err := c.Do(ctx, []byte(req), wire.Timeouts{FirstByte: 10 * time.Second, Stall: 10 * time.Second}, func(_ *wire.Head, p []byte) error {
		if len(body)+len(p) <= 1<<20 {
			body = append(body, p...)
		}
		return nil
	})
	return h.Status, body, err
}

// firstModel is the id of the first model a /v1/models reply lists.
func firstModel(body []byte) string {
	first, ok, err := wire.Path(body, "data")
	if err != nil || !ok {
		return ""
	}
	if first, ok, err = wire.Index(first, 0); err != nil || !ok {
		return ""
	}
	id, ok, err := wire.Field(first, "id")
	if err != nil || !ok || wire.IsNull(id) {
		return ""
	}
	s, err := wire.AppendString(nil, id)
	if err != nil {
		return ""
	}
	return string(s)
}
