package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/bench/dlrmv3"
	"github.com/mlperf-host/mlperf-host/internal/bench/yolo"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// submitFixture is one benchmark's closed submission: a data set on
// which its signature model reaches the closed division's targets, the
// user.conf of its runs and the compliance tests whose verdicts are
// golden (testdata/submit_NAME_TEST_SCENARIO.golden).
type submitFixture struct {
	name, benchmark, category, model, conf string
	write                                  func(t *testing.T, dir string)
	scenarios, audits                      []string
	// set are more --set flags of the submission.
	set []string
}

func submitFixtures() []submitFixture {
	return []submitFixture{
		// Predictions near 1/2 on the right side of it: every candidate
		// right, every request's AUC 1, NE about 0.91: the closed targets
		// (DLRM_NE >= 0.866, DLRM_ACC >= 0.6958, DLRM_AUC >= 0.7858) met.
		// A Server run long enough for early stopping (1000 queries at
		// 200 QPS, as auditsConf's, under a bound of 1 s that a busy
		// machine meets), the others a handful of queries.
		{name: "dlrm-v3", benchmark: "dlrm-v3", category: "datacenter", model: "dlrmv3-signature.onnx",
			conf: "*.*.min_duration = 0\n*.*.min_query_count = 8\n*.Offline.target_qps = 1\n" +
				"dlrm-v3.Server.target_qps = 200\ndlrm-v3.Server.min_query_count = 1000\ndlrm-v3.Server.target_latency = 1000\n",
			write: func(t *testing.T, dir string) {
				require.NoError(t, dlrmv3.WriteStreaming(filepath.Join(dir, dlrmv3.SampledDir), 10, [][]dlrmv3.Slot{
					dlrmv3Requester([]int64{540, 474, 543}, []float32{4, 2, 5}),
					dlrmv3Requester([]int64{477, 546}, []float32{1, 3.5}),
					dlrmv3Requester([]int64{480, 549, 483, 552, 486}, []float32{3, 4, 1, 5, 2}),
				}))
			},
			scenarios: []string{"Server", "Offline"}, audits: []string{"TEST08"}},
		// Every box found exactly: mAP 100%, past yolo-99's 52.866.
		// SingleStream runs of 64 queries and MultiStream runs of 662, the
		// fewest early stopping takes.
		{name: "yolo", benchmark: "yolo-99", category: "edge", model: "yolo-signature.onnx",
			conf: benchConf + "yolo.SingleStream.min_query_count = 64\nyolo.MultiStream.min_query_count = 662\n",
			write: func(t *testing.T, dir string) {
				person := yolo.Detection{Class: 0, CX: 100, CY: 120, W: 40, H: 60, Score: 230}
				car := yolo.Detection{Class: 2, CX: 160, CY: 100, W: 50, H: 50, Score: 200}
				require.NoError(t, yolo.WriteCOCO(dir, []yolo.Image{
					{FileName: "000000000139.jpg", ID: 139, Width: 640, Height: 576, Detections: []yolo.Detection{person, car},
						Truth: []yolo.Object{yolo.TruthOf(person, 640, 576), yolo.TruthOf(car, 640, 576)}},
					{FileName: "000000000285.jpg", ID: 285, Width: 320, Height: 288},
				}, []int{1, 3}))
			},
			scenarios: []string{"SingleStream", "MultiStream", "Offline"}, audits: []string{"TEST01"}},
		// The features give FID 4.3² + 5 = 23.49 and CLIP 100 × 0.3175 at
		// every text embedding along its image's: inside the round's
		// closed ranges (23.01 to 23.95, 31.69 to 31.81). TEST04 runs too;
		// its verdict compares two runs' latencies, as TEST01's
		// performance one.
		{name: "stable-diffusion-xl", benchmark: "stable-diffusion-xl", category: "edge", model: "sdxl-signature.onnx",
			conf:      benchConf + "stable-diffusion-xl.SingleStream.min_query_count = 64\n",
			write:     writeSDXLFixture([]float64{4.3, 0}, [][]float32{{0.3175, 0.94826}, {0.94826, 0.3175}, {0.3175, 0.94826}, {0.94826, 0.3175}, {0.3175, 0.94826}}),
			set:       []string{"--set", "accuracy.features=data/features"},
			scenarios: []string{"SingleStream", "Offline"}, audits: []string{"TEST01", "TEST04"}},
	}
}

// TestSubmitBenchmarksEndToEnd submits each benchmark's closed tree as a
// vendor would: every required scenario of its category, each with its
// accuracy run and compliance tests (their accuracy verdicts golden).
// The small data sets reach none of the round's sample counts nor its
// 600 s: the tree's check says so, and only so.
func TestSubmitBenchmarksEndToEnd(t *testing.T) {
	t.Parallel()
	plugins, _ := onnxOrt(t)
	for _, tt := range submitFixtures() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model, err := filepath.Abs(filepath.Join("testdata", "benchmarks", tt.model))
			require.NoError(t, err)
			dir := auditsDir(t, tt.name)
			tt.write(t, filepath.Join(dir, "data"))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "user.conf"), []byte(tt.conf), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "calibration.md"), []byte("# Calibration\n\nFP32 as trained.\n"), 0o644))
			args := []string{"submit", "--submission", "sub", "--benchmark", tt.benchmark, "--dataset", "data", "--model", model,
				"--plugin", "onnx-ort", "--plugin-dirs", plugins, "--user-conf", "user.conf", "--set", "category=" + tt.category,
				"--set", "calibration=calibration.md"}
			args = append(args, tt.set...)
			r := mlperfHost(t, dir, append(args, submitTreeFlags("closed")...)...)
			res := filepath.Join(dir, "sub", "closed", "acme", "results", "box", tt.benchmark)
			scenarios := tt.scenarios
			stopped := submitStopped(t, r, res)
			if stopped != "" {
				// A timed run missed its bound on this machine: the
				// scenarios before it were submitted whole.
				scenarios = submittedBefore(r, scenarios, stopped)
				t.Logf("submit stopped at the %s performance run; checking %v", stopped, scenarios)
			} else {
				require.Equal(t, exitcode.SubmissionInvalid, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
			for _, sc := range scenarios {
				if tt.benchmark == "stable-diffusion-xl" {
					// The compliance images' directory, as the checker
					// wants it; the round's ids are beyond the 5 captions.
					assert.FileExists(t, filepath.Join(res, sc, "accuracy", "images", "captions.txt"))
				}
				for _, test := range tt.audits {
					assert.FileExists(t, filepath.Join(res, sc, test, "audit.config"))
					if test == "TEST04" { // a performance verdict alone
						assert.FileExists(t, filepath.Join(res, sc, test, "verify_performance.txt"))
						continue
					}
					verdict, err := os.ReadFile(filepath.Join(res, sc, test, "verify_accuracy.txt"))
					require.NoError(t, err)
					golden(t, "submit_"+tt.name+"_"+strings.ToLower(test+"_"+sc), string(verdict))
					assert.FileExists(t, filepath.Join(res, sc, test, "audit.config"))
				}
			}
			// TEST01's and TEST04's performance verdicts compare two runs'
			// latencies, which a shared machine varies: they may pass or not.
			if stopped != "" {
				return // the tree is not whole: its check is the other outcome's
			}
			problems := checkedProblems(t, dir)
			require.Len(t, problems, len(tt.scenarios))
			for sc, ps := range problems {
				require.NotEmpty(t, ps, sc)
				for _, p := range ps {
					assert.Regexp(t, `\((performance_sample_count_check|min_query_count_check|min_duration_check|dataset_check)\)$|`+
						`(TEST01|TEST04)/verify_performance.txt: TEST0[14] performance verification did not pass \(compliance_performance_check\)$`, p, sc)
				}
			}
		})
	}
}
