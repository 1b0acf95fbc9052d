package backend

import (
	"errors"
	"fmt"
	"strconv"
)

// The plugin options the backend reads from sdk.Model.Options ("--set
// onnx.<key>=<value>"). Every other key is passed to the engine as
// engine.Options.Extra.
const (
	// OptEngine selects the engine by name: "go" or "ort". Unset, the
	// backend's default engine serves the model ([Config]).
	OptEngine = "engine"
	// OptThreads is the number of threads one inference may use; 0 (the
	// default) lets the engine choose.
	OptThreads = "threads"
	// OptBatch is the largest number of samples run together; a query
	// with more samples runs in several batches. Default 32.
	OptBatch = "batch"
	// OptInstances is the number of sessions, hence of Infer calls that
	// run at once. Default 1.
	OptInstances = "instances"
	// OptResponse is what a sample's response holds: "outputs" (default;
	// its slice of every output, concatenated) or "class" (its predicted
	// class as one float32, MLPerf's image classification response).
	OptResponse = "response"
	// OptClassOutput names the output the class comes from with
	// response=class: one class per sample (an ArgMax output) or scores
	// whose first highest is the class. Default: the model's first output.
	OptClassOutput = "class_output"
	// OptClassOffset is added to the class with response=class: -1 for a
	// model whose class 0 is "background" (MLPerf's 1001-class ResNet-50
	// graphs), 0 (default) otherwise.
	OptClassOffset = "class_offset"
)

// config is the parsed options.
type config struct {
	engine string
	// engineSet: the engine option named the engine (no fallback then).
	engineSet bool
	threads   int
	batch     int
	instances int
	extra     map[string]string

	response    string
	classOutput string
	classOffset int
}

const (
	defaultBatch = 32
	maxBatch     = 1 << 16
	maxInstances = 1024
)

// parseOptions reads the backend's options and collects the rest for the
// engine; the engine is defaultEngine unless an option names one. Errors
// name every bad option.
func parseOptions(opts map[string]string, maxInFlight int, defaultEngine string) (config, error) {
	c := config{engine: defaultEngine, batch: defaultBatch, instances: 1, extra: map[string]string{}, response: ResponseOutputs}
	var errs []error
	num := func(key string, lo, hi int, dst *int) {
		v, ok := opts[key]
		if !ok {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Errorf("option %s=%q: want an integer from %d to %d", key, v, lo, hi))
			return
		}
		*dst = n
	}
	for k, v := range opts {
		switch k {
		case OptEngine:
			c.engine, c.engineSet = v, true
		case OptResponse:
			c.response = v
		case OptClassOutput:
			c.classOutput = v
		case OptThreads, OptBatch, OptInstances, OptClassOffset:
		default:
			c.extra[k] = v
		}
	}
	num(OptThreads, 0, 4096, &c.threads)
	num(OptBatch, 1, maxBatch, &c.batch)
	num(OptInstances, 1, min(maxInstances, maxInFlight), &c.instances)
	num(OptClassOffset, -1<<20, 1<<20, &c.classOffset)
	return c, errors.Join(errs...)
}
