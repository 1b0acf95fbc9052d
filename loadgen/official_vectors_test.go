package loadgen

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOfficialVectors compares whole runs with the official C++ LoadGen.
// The expected values were produced by the official sources (5.x, rebuilt
// with GCC 12) driving a null SUT that completes every sample inline with
// empty data, with the same settings: the SHA-256 of the accuracy log
// (which fixes every loadable set, the order of every sample, the
// accuracy-log sampling draws and the sequence ids) and, per issuing pass,
// generated_query_count and generated_query_duration (which fixes the
// query counts and, for Server, the sum of every Poisson gap to the
// nanosecond).
func TestOfficialVectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		settings    func(s *TestSettings)
		total, perf uint64
		accuracySHA string
		counts      []uint64
		durationsNs []int64
	}{
		{
			name: "singlestream accuracy", settings: func(s *TestSettings) { s.Mode = AccuracyOnly },
			total: 100, perf: 32,
			accuracySHA: "aa21c4effef6130f6a9171ba1b8355681cccd1f0647eecbe65019d28d48d507c",
			counts:      []uint64{32, 32, 32, 4}, durationsNs: []int64{32e6, 32e6, 32e6, 4e6},
		},
		{
			name:     "multistream accuracy",
			settings: func(s *TestSettings) { s.Scenario, s.Mode = MultiStream, AccuracyOnly },
			total:    50, perf: 16,
			accuracySHA: "f677733ca117b2fb424ddeac94a42ac20b369673cfa90632c66373e6c75739ba",
			counts:      []uint64{2, 2, 2, 1}, durationsNs: []int64{16e6, 16e6, 16e6, 8e6},
		},
		{
			name: "offline accuracy with concatenated permutations",
			settings: func(s *TestSettings) {
				s.Scenario, s.Mode, s.SampleConcatenatePermutation = Offline, AccuracyOnly, true
			},
			total: 50, perf: 16,
			accuracySHA: "41b5a42665b2176c2c9140f8bcb5bf36c0da6730a6c8c340dbdc14029ec31d60",
			counts:      []uint64{1, 1, 1, 1}, durationsNs: []int64{1e9, 1e9, 1e9, 1e9},
		},
		{
			name: "server performance with sampled accuracy log",
			settings: func(s *TestSettings) {
				s.Scenario, s.ServerTargetQPS, s.MinDuration = Server, 5000, 200*time.Millisecond
				s.AccuracyLogProbability, s.AccuracyLogRNGSeed = 0.5, 7
			},
			total: 100, perf: 32,
			accuracySHA: "c36923fcb430d93cb7f8ba15832a928cf2268e71ab150aec666d01ef8e9e6eb3",
			counts:      []uint64{1001}, durationsNs: []int64{200307344},
		},
		{
			name: "singlestream equal issue",
			settings: func(s *TestSettings) {
				s.SampleConcatenatePermutation, s.MinQueryCount, s.AccuracyLogProbability = true, 100, 1
			},
			total: 64, perf: 16,
			accuracySHA: "ed45aff19898f9378e9abe98b5657031b62dc0723ff5b7c1d4bfec7704377da5",
			counts:      []uint64{112}, durationsNs: []int64{112e6},
		},
		{
			name: "multistream performance",
			settings: func(s *TestSettings) {
				s.Scenario, s.MinQueryCount, s.AccuracyLogProbability, s.AccuracyLogRNGSeed = MultiStream, 300, 0.3, 99
			},
			total: 100, perf: 32,
			accuracySHA: "c46b21e4588f45a2dca27309d29083ca36a300263288e923f7b8a20820860a5a",
			counts:      []uint64{300}, durationsNs: []int64{2400e6},
		},
		{
			name: "server performance_issue_unique",
			settings: func(s *TestSettings) {
				s.Scenario, s.ServerTargetQPS, s.PerformanceIssueUnique, s.AccuracyLogProbability = Server, 1000, true, 1
			},
			total: 100, perf: 32,
			accuracySHA: "e25ee54876c8b4356aa8997015f089336c8709fb1c298255aa7bda4a75469731",
			counts:      []uint64{32}, durationsNs: []int64{28370674},
		},
		{
			name: "submission run with a sampling target",
			settings: func(s *TestSettings) {
				s.Mode, s.MinQueryCount = SubmissionRun, 50
				s.AccuracyLogSamplingTarget, s.AccuracyLogRNGSeed = 10, 3
			},
			total: 40, perf: 16,
			accuracySHA: "a4ad7a6994aac8e30ea13ca70facce747501db257bb73c18589d91697b4bb79d",
			counts:      []uint64{16, 16, 8, 50}, durationsNs: []int64{16e6, 16e6, 8e6, 50e6},
		},
		{
			name: "offline performance with concatenated permutations",
			settings: func(s *TestSettings) {
				s.Scenario, s.MinQueryCount, s.SampleConcatenatePermutation, s.AccuracyLogProbability = Offline, 1000, true, 0.01
			},
			total: 100, perf: 32,
			accuracySHA: "32680234bebb1246ebb060cb1e7789dd966aa9408da2fd7e5d3632e8e962496b",
			counts:      []uint64{1}, durationsNs: []int64{1e9},
		},
	}
	countRE := regexp.MustCompile(`"key": "generated_query_count", "value": (\d+)`)
	durationRE := regexp.MustCompile(`"key": "generated_query_duration", "value": (\d+)`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				s := DefaultTestSettings()
				s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed = seedQSL, seedSample, seedSchedule
				s.MinDuration = 0
				tt.settings(&s)
				_, err := StartTest(context.Background(), &nullSUT{}, &fakeQSL{total: tt.total, perf: tt.perf}, s, LogSettings{OutDir: dir}, withSpin(0))
				require.NoError(t, err)
			})
			sum := sha256.Sum256(readLog(t, dir, "accuracy.json"))
			assert.Equal(t, tt.accuracySHA, hex.EncodeToString(sum[:]), "accuracy log differs from the official")
			detail := string(readLog(t, dir, "detail.txt"))
			var counts []uint64
			for _, m := range countRE.FindAllStringSubmatch(detail, -1) {
				n, _ := strconv.ParseUint(m[1], 10, 64)
				counts = append(counts, n)
			}
			var durations []int64
			for _, m := range durationRE.FindAllStringSubmatch(detail, -1) {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				durations = append(durations, n)
			}
			assert.Equal(t, tt.counts, counts)
			assert.Equal(t, tt.durationsNs, durations)
		})
	}
}
