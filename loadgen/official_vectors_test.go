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
// The expected values were produced by the official LoadGen 6.0.17
// (mlcommons/inference b66003e1, built with GCC 12.2) through a driver
// that applies the same settings with TestSettings::FromConfig (audit
// kind, so no compiled-in mlperf.conf) and runs StartTest against a null
// SUT completing every sample inline, with empty data or, where withData
// is set, the 4 bytes of sampleData: the SHA-256 of the accuracy log
// (which fixes every loadable set, the order of every sample, the
// accuracy-log sampling draws and the sequence ids) and, per issuing pass,
// generated_query_count and generated_query_duration (which fix the query
// counts and, for Server, the sum of every Poisson gap to the nanosecond).
// The runs use fake time, but one in real time with the default issuer.
func TestOfficialVectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		settings    func(s *TestSettings)
		total, perf uint64
		accuracySHA string
		counts      []uint64
		durationsNs []int64
		withData    bool
		realTime    bool
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
			accuracySHA: "f6a7742da9bd791525a00c26469e6f3a90260a2ca94b24397a68a39ef0d1dc05",
			counts:      []uint64{1001}, durationsNs: []int64{200307344},
		},
		{
			name: "server performance with sampled accuracy log, real time",
			settings: func(s *TestSettings) {
				s.Scenario, s.ServerTargetQPS, s.MinDuration = Server, 5000, 200*time.Millisecond
				s.AccuracyLogProbability, s.AccuracyLogRNGSeed = 0.5, 7
			},
			total: 100, perf: 32, realTime: true,
			accuracySHA: "f6a7742da9bd791525a00c26469e6f3a90260a2ca94b24397a68a39ef0d1dc05",
			counts:      []uint64{1001}, durationsNs: []int64{200307344},
		},
		{
			name: "singlestream equal issue",
			settings: func(s *TestSettings) {
				s.SampleConcatenatePermutation, s.MinQueryCount, s.AccuracyLogProbability = true, 100, 1
			},
			total: 64, perf: 16,
			accuracySHA: "9a13e562d4d7a288ba10514b28b547e096faedc077a9bdeca521a802a2c69382",
			counts:      []uint64{112}, durationsNs: []int64{112e6},
		},
		{
			name: "multistream performance",
			settings: func(s *TestSettings) {
				s.Scenario, s.MinQueryCount, s.AccuracyLogProbability, s.AccuracyLogRNGSeed = MultiStream, 300, 0.3, 99
			},
			total: 100, perf: 32,
			accuracySHA: "0458049ec57aaf565864985f26ee50219c49146f0479b489e6f63998d39e0113",
			counts:      []uint64{300}, durationsNs: []int64{2400e6},
		},
		{
			name: "server performance_issue_unique",
			settings: func(s *TestSettings) {
				s.Scenario, s.ServerTargetQPS, s.PerformanceIssueUnique, s.AccuracyLogProbability = Server, 1000, true, 1
			},
			total: 100, perf: 32,
			accuracySHA: "385dd6c02b3be351d35cc056eb9efc9eec0e143865a982dbdc6e2bef57b18501",
			counts:      []uint64{32}, durationsNs: []int64{28370674},
		},
		{
			name: "submission run with a sampling target",
			settings: func(s *TestSettings) {
				s.Mode, s.MinQueryCount = SubmissionRun, 50
				s.AccuracyLogSamplingTarget, s.AccuracyLogRNGSeed = 10, 3
			},
			total: 40, perf: 16,
			accuracySHA: "0ff62e00a0dcb3da4f45a15c2fd3da28c31f539daefbcbd71e8039710e101edd",
			counts:      []uint64{16, 16, 8, 50}, durationsNs: []int64{16e6, 16e6, 8e6, 50e6},
		},
		{
			name: "offline performance with concatenated permutations",
			settings: func(s *TestSettings) {
				s.Scenario, s.MinQueryCount, s.SampleConcatenatePermutation, s.AccuracyLogProbability = Offline, 1000, true, 0.01
			},
			total: 100, perf: 32,
			accuracySHA: "7e070c8040e3543ee2a91fe0901edd4f123d6e67f3a05ab261e39b32fb478e5d",
			counts:      []uint64{1}, durationsNs: []int64{1e9},
		},
		{
			name: "accuracy sample count override",
			settings: func(s *TestSettings) {
				s.Mode, s.AccuracySampleCountOverride = AccuracyOnly, 150
			},
			total: 300, perf: 64,
			accuracySHA: "77f6d748fb9b082fecbc3093b81a0b2c907efa9f9c44e10a6128dfca1de16d80",
			counts:      []uint64{64, 64, 22}, durationsNs: []int64{64e6, 64e6, 22e6},
		},
		{
			name: "server submission run with an accuracy sample count override",
			settings: func(s *TestSettings) {
				s.Scenario, s.Mode, s.AccuracySampleCountOverride = Server, SubmissionRun, 230
				s.ServerTargetQPS, s.MinDuration, s.AccuracyLogSamplingTarget = 2000, 100*time.Millisecond, 40
			},
			total: 500, perf: 100, withData: true,
			accuracySHA: "b2379d7fc697b9938bfaa514161c6644eaeb8da6858c98da2fd524fb61b997f3",
			counts:      []uint64{100, 100, 30, 228}, durationsNs: []int64{46924746, 46924746, 11906325, 100669977},
		},
	}
	countRE := regexp.MustCompile(`"key": "generated_query_count", "value": (\d+)`)
	durationRE := regexp.MustCompile(`"key": "generated_query_duration", "value": (\d+)`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			run := func(t *testing.T, opts ...Option) {
				s := DefaultTestSettings()
				s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed = seedQSL, seedSample, seedSchedule
				s.MinDuration = 0
				tt.settings(&s)
				var sut SUT = &nullSUT{}
				if tt.withData {
					sut = newFakeSUT(nil)
				}
				_, err := StartTest(context.Background(), sut, &fakeQSL{total: tt.total, perf: tt.perf}, s, LogSettings{OutDir: dir}, opts...)
				require.NoError(t, err)
			}
			if tt.realTime {
				// The default issuer, in real time: what is logged must
				// not depend on when queries were issued.
				run(t)
			} else {
				synctest.Test(t, func(t *testing.T) { run(t, withSpin(0)) })
			}
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
