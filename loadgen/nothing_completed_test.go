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

// TestNothingCompleted: a run whose SUT dies before any sample completes
// says so in the summary and in the detail log's invalid reason; its rates
// read 0 rather than a division by zero (nan, inf, or a count less one
// wrapped around), and every detail entry is JSON.
func TestNothingCompleted(t *testing.T) {
	t.Parallel()
	// A number of 15 digits or more before its point is a wrapped count.
	huge := regexp.MustCompile(`\d{15,}\.\d`)
	for _, tt := range []struct {
		name   string
		sc     Scenario
		tokens bool
		rate   string // the summary's headline rate, where the scenario has one
	}{
		{name: "SingleStream", sc: SingleStream, rate: "QPS w/ loadgen overhead         : 0.00"},
		{name: "MultiStream", sc: MultiStream},
		{name: "Server", sc: Server, rate: "Completed samples per second    : 0.00"},
		{name: "Offline", sc: Offline, rate: "Samples per second: 0\n"},
		{name: "Server tokens", sc: Server, tokens: true, rate: "Completed tokens per second: 0.00"},
		{name: "Offline tokens", sc: Offline, tokens: true, rate: "Tokens per second: 0\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sut := funcSUT{issue: func(_ context.Context, _ []QuerySample, r *Responder) error {
				r.Abort(errors.New("backend crashed"))
				return nil
			}}
			s := smallSettings(tt.sc)
			s.UseTokenLatencies = tt.tokens
			dir := t.TempDir()
			res, err := StartTest(context.Background(), sut, &fakeQSL{total: 64, perf: 64}, s, goldenLogSettings(dir))
			require.ErrorIs(t, err, ErrAborted)
			assert.False(t, res.Valid)

			summary := string(readLog(t, dir, "summary.txt"))
			assert.Contains(t, summary, "Result is : INVALID")
			assert.Contains(t, summary, " * "+noneCompletedRecommendation)
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
			assert.Contains(t, reason, noneCompletedRecommendation)
		})
	}
}
