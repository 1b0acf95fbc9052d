package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNothingCompleted: a run whose SUT dies before any sample completes,
// or fails every sample it completes (a plugin that died fails the samples
// in flight), says so in the summary and in the detail log's invalid
// reason; its rates read 0 rather than a division by zero (nan, inf, or a
// count less one wrapped around) or a rate of failures, and every detail
// entry is JSON.
func TestNothingCompleted(t *testing.T) {
	t.Parallel()
	abort := func(_ context.Context, _ []QuerySample, r *Responder) error {
		r.Abort(errors.New("backend crashed"))
		return nil
	}
	failAll := func(_ context.Context, samples []QuerySample, r *Responder) error {
		resp := make([]QuerySampleResponse, len(samples))
		for i, s := range samples {
			resp[i] = QuerySampleResponse{ID: s.ID, Err: errors.New("backend crashed")}
		}
		return r.QuerySamplesComplete(resp)
	}
	// A number of 15 digits or more before its point is a wrapped count.
	huge := regexp.MustCompile(`\d{15,}\.\d`)
	for _, tt := range []struct {
		name   string
		sc     Scenario
		tokens bool
		fail   bool   // complete every sample with an error rather than abort
		rate   string // the summary's headline rate, where the scenario has one
	}{
		{name: "SingleStream", sc: SingleStream, rate: "QPS w/ loadgen overhead         : 0.00"},
		{name: "MultiStream", sc: MultiStream},
		{name: "Server", sc: Server, rate: "Completed samples per second    : 0.00"},
		{name: "Offline", sc: Offline, rate: "Samples per second: 0\n"},
		{name: "Server tokens", sc: Server, tokens: true, rate: "Completed tokens per second: 0.00"},
		{name: "Offline tokens", sc: Offline, tokens: true, rate: "Tokens per second: 0\n"},
		{name: "SingleStream failed", sc: SingleStream, fail: true, rate: "QPS w/ loadgen overhead         : 0.00"},
		{name: "Server failed", sc: Server, fail: true, rate: "Completed samples per second    : 0.00"},
		{name: "Offline failed", sc: Offline, fail: true, rate: "Samples per second: 0\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sut, rec := funcSUT{issue: abort}, noneCompletedRecommendation
			if tt.fail {
				sut, rec = funcSUT{issue: failAll}, allFailedRecommendation
			}
			s := smallSettings(tt.sc)
			s.UseTokenLatencies = tt.tokens
			dir := t.TempDir()
			res, err := StartTest(context.Background(), sut, &fakeQSL{total: 64, perf: 64}, s, goldenLogSettings(dir))
			if !tt.fail {
				require.ErrorIs(t, err, ErrAborted)
			}
			assert.False(t, res.Valid)

			summary := string(readLog(t, dir, "summary.txt"))
			assert.Contains(t, summary, "Result is : INVALID")
			assert.Contains(t, summary, " * "+rec)
			if tt.rate != "" {
				assert.Contains(t, summary, tt.rate)
			}
			head := summary[:strings.Index(summary, "Test Parameters Used")]
			assert.NotRegexp(t, `\bnan\b|\binf\b`, head)
			assert.NotRegexp(t, huge, head)

			detail := readLog(t, dir, "detail.txt")
			var reason string
			sc := bufio.NewScanner(bytes.NewReader(detail))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				line, ok := strings.CutPrefix(sc.Text(), ":::MLLOG ")
				require.True(t, ok, sc.Text())
				var e struct {
					Key   string `json:"key"`
					Value any    `json:"value"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &e), line)
				switch {
				case e.Key == "result_invalid_reason":
					reason, _ = e.Value.(string)
				case strings.Contains(e.Key, "per_sec") || strings.Contains(e.Key, "qps_with") ||
					strings.Contains(e.Key, "tokens_per_second"):
					assert.Equal(t, "0", fmt.Sprint(e.Value), e.Key)
				}
			}
			require.NoError(t, sc.Err())
			assert.Contains(t, reason, rec)
		})
	}
}
