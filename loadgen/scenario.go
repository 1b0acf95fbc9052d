package loadgen

import "fmt"

// Scenario is an MLPerf Inference scenario.
type Scenario int

// The scenarios, in the official LoadGen's enum order.
const (
	// SingleStream issues one single-sample query at a time, the next as
	// soon as the previous completes. Its metric is a latency percentile.
	SingleStream Scenario = iota
	// MultiStream issues one query of several contiguous samples at a time,
	// the next as soon as the previous completes. Its metric is a
	// percentile of the query latency.
	MultiStream
	// Server issues single-sample queries at Poisson-distributed times. Its
	// metric is the completed samples per second, valid only while the
	// latency percentile stays within the bound.
	Server
	// Offline issues every sample in one query. Its metric is samples per
	// second.
	Offline
)

var scenarioNames = [...]string{"SingleStream", "MultiStream", "Server", "Offline"}

// String returns the scenario's official name, as the logs write it.
func (s Scenario) String() string {
	if s < 0 || int(s) >= len(scenarioNames) {
		return fmt.Sprintf("Scenario(%d)", int(s))
	}
	return scenarioNames[s]
}

// ParseScenario returns the scenario with the given official name.
func ParseScenario(name string) (Scenario, error) {
	for i, n := range scenarioNames {
		if n == name {
			return Scenario(i), nil
		}
	}
	return 0, fmt.Errorf("unknown scenario %q (want SingleStream, MultiStream, Server or Offline)", name)
}

func (s Scenario) valid() bool { return s >= SingleStream && s <= Offline }

// Mode is what a run measures.
type Mode int

// The modes, in the official LoadGen's enum order (which is also the value
// of the "mode" key in config files).
const (
	// SubmissionRun runs AccuracyOnly, then PerformanceOnly.
	SubmissionRun Mode = iota
	// AccuracyOnly issues every sample of the data set once and logs every
	// response to the accuracy log.
	AccuracyOnly
	// PerformanceOnly runs the timed scenario.
	PerformanceOnly
	// FindPeakPerformance searches the highest valid Server target QPS.
	FindPeakPerformance
)

var modeNames = [...]string{"SubmissionRun", "AccuracyOnly", "PerformanceOnly", "FindPeakPerformance"}

// String returns the mode's official name, as the logs write it.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode returns the mode with the given official name.
func ParseMode(name string) (Mode, error) {
	for i, n := range modeNames {
		if n == name {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q (want SubmissionRun, AccuracyOnly, PerformanceOnly or FindPeakPerformance)", name)
}

func (m Mode) valid() bool { return m >= SubmissionRun && m <= FindPeakPerformance }
