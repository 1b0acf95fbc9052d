package loadgen

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reportingSUT is the fake SUT with a report of its own.
type reportingSUT struct {
	*fakeSUT
	reports int
}

func (s *reportingSUT) SUTStartEntries() []DetailEntry {
	return []DetailEntry{{Key: "sut_network_mode", Value: true}, {Key: "sut_transport", Value: "grpc+mtls"}}
}

func (s *reportingSUT) SUTPerformanceReport() SUTReport {
	s.reports++
	return SUTReport{
		Title: "Pool Members",
		Lines: []string{"gpu0 : 60.00% of samples", "gpu1 : 40.00% of samples"},
		Detail: []DetailEntry{
			{Key: "sut_pool_member", Value: map[string]any{"name": "gpu0", "samples": 60, "p99_ns": 1500}},
			{Key: "sut_pool_members", Value: 2},
		},
	}
}

func TestSUTReporter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sut := &reportingSUT{fakeSUT: newFakeSUT(nil)}
	synctest.Test(t, func(t *testing.T) {
		_, err := StartTest(context.Background(), sut, &fakeQSL{total: 32, perf: 16}, smallSettings(Offline), goldenLogSettings(dir), withSpin(0))
		require.NoError(t, err)
	})
	assert.Equal(t, 1, sut.reports)
	detail := string(readLog(t, dir, "detail.txt"))
	name := strings.Index(detail, `"key": "sut_name"`)
	mode := strings.Index(detail, `"key": "sut_network_mode", "value": true,`)
	qsl := strings.Index(detail, `"key": "qsl_name"`)
	assert.True(t, name < mode && mode < qsl, "start entries follow sut_name")
	assert.Contains(t, detail, `"key": "sut_transport", "value": "grpc+mtls",`)
	member := strings.Index(detail, `"key": "sut_pool_member", "value": {"name":"gpu0","p99_ns":1500,"samples":60},`)
	validity := strings.Index(detail, `"key": "result_validity"`)
	assert.Positive(t, member)
	assert.Less(t, validity, member, "the performance report follows the results")
	assert.Contains(t, detail, `"key": "sut_pool_members", "value": 2,`)
	summary := string(readLog(t, dir, "summary.txt"))
	assert.Contains(t, summary, "Test Parameters Used")
	assert.Contains(t, summary, "================================================\nPool Members\n================================================\ngpu0 : 60.00% of samples\ngpu1 : 40.00% of samples\n")
	assert.Less(t, strings.Index(summary, "Test Parameters Used"), strings.Index(summary, "Pool Members"))
}

func TestAnyValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"string", "x", `"x"`},
		{"bool", false, "false"},
		{"int", 3, "3"},
		{"int64", int64(-4), "-4"},
		{"uint64", uint64(5), "5"},
		{"float", 0.25, "0.25"},
		{"object", struct {
			A int `json:"a"`
		}{7}, `{"a":7}`},
		{"unencodable", func() {}, `"unencodable value: json: unsupported type: func()"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, string(anyValue(tc.v)(nil, true)))
		})
	}
}
