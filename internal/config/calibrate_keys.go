package config

import (
	"strconv"
	"time"
)

// The calibrate.* keys: how a run measures the system before its timed
// run and chooses the scenario's expected value the user did not set.
const (
	KeyCalibrateMode        = "calibrate.mode"
	KeyCalibrateProbeTime   = "calibrate.probe_time"
	KeyCalibrateMargin      = "calibrate.margin"
	KeyCalibrateServerSteps = "calibrate.server_steps"
	KeyCalibrateMaxSamples  = "calibrate.max_samples"
)

// The values of calibrate.mode.
const (
	CalibrateAuto = "auto"
	CalibrateOff  = "off"
)

// CalibrateConfig is the calibrate.* keys.
type CalibrateConfig struct {
	// Mode is CalibrateAuto (probe, then choose what the user did not
	// set) or CalibrateOff (run with the rules' values).
	Mode string
	// ProbeTime is about how long one probe runs.
	ProbeTime time.Duration
	// Margin is the safety factor between what a probe measured and the
	// value chosen.
	Margin float64
	// ServerSteps is the Server peak search's bisection steps.
	ServerSteps int
	// MaxSamples bounds the schedule a calibrated value makes LoadGen
	// generate over min_duration.
	MaxSamples uint64
}

func calibrateKeySpecs() []keySpec {
	return []keySpec{
		with(keySpec{key: KeyCalibrateMode, def: CalibrateAuto, help: "before a performance run, probe the system and choose the scenario's " +
			"target_qps / target_latency unless you set it: auto, or off (the rules' values)"}, oneOf(CalibrateAuto, CalibrateOff)),
		{key: KeyCalibrateProbeTime, def: "1s", help: "about how long one calibration probe runs (untimed, not logged)",
			checker: checker{"a Go duration from 10ms to 10m", durationRange(10*time.Millisecond, 10*time.Minute)}},
		{key: KeyCalibrateMargin, def: "3", help: "safety factor of a calibrated value: the run stays valid on a system this many times " +
			"faster (Offline, SingleStream, MultiStream) or slower (Server) than during the probe",
			checker: floatRange(1, 100)},
		with(keySpec{key: KeyCalibrateServerSteps, def: "6", help: "bisection steps of the Server peak search below the measured capacity"},
			intRange(1, 30)),
		{key: KeyCalibrateMaxSamples, def: "67108864", help: "most samples the schedule of a calibrated value may hold over min_duration " +
			"(LoadGen builds it before the run, tens of bytes a sample): a faster system's value is bounded to fit",
			checker: checker{"an integer from 1024 to 1073741824", func(v string) error {
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return err
				}
				if n < 1024 || n > 1<<30 {
					return errBad
				}
				return nil
			}}},
	}
}

// buildCalibrate sets the calibrate.* fields from the checked keys.
func (c *Config) buildCalibrate(get func(string) string) {
	c.Calibrate.Mode = get(KeyCalibrateMode)
	c.Calibrate.ProbeTime, _ = time.ParseDuration(get(KeyCalibrateProbeTime))
	c.Calibrate.Margin, _ = strconv.ParseFloat(get(KeyCalibrateMargin), 64)
	c.Calibrate.ServerSteps, _ = strconv.Atoi(get(KeyCalibrateServerSteps))
	c.Calibrate.MaxSamples, _ = strconv.ParseUint(get(KeyCalibrateMaxSamples), 10, 64)
}

func floatRange(lo, hi float64) checker {
	return checker{"a number from " + strconv.FormatFloat(lo, 'g', -1, 64) + " to " + strconv.FormatFloat(hi, 'g', -1, 64),
		func(v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return err
			}
			if !(f >= lo && f <= hi) {
				return errBad
			}
			return nil
		}}
}

func durationRange(lo, hi time.Duration) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		if d < lo || d > hi {
			return errBad
		}
		return nil
	}
}
