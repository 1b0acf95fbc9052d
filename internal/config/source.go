package config

import (
	"errors"
	"fmt"
	"strings"
)

// Layer names a configuration layer, lowest precedence first.
type Layer int

// The layers.
const (
	LayerBuiltin Layer = iota
	LayerMLPerfConf
	// LayerCalibration holds the values a calibration chose from its
	// probe runs (Config.With): above the rules, below every layer the
	// user writes, whose values always win.
	LayerCalibration
	LayerUserConf
	LayerFile
	LayerEnv
	LayerFlag
)

var layerNames = [...]string{"built-in", "mlperf.conf", "calibration", "user.conf", "config file", "environment", "flag"}

// String returns the layer's name.
func (l Layer) String() string { return layerNames[l] }

// Source is where a value came from: its layer and the place in it, e.g.
// {LayerUserConf, "conf/user.conf:12 (resnet50.Server.target_qps)"}.
type Source struct {
	Layer Layer
	Where string
}

// String reads "user.conf conf/user.conf:12 (resnet50.Server.target_qps)".
func (s Source) String() string {
	if s.Where == "" {
		return s.Layer.String()
	}
	return s.Layer.String() + " " + s.Where
}

// ErrConfig is wrapped by every error about a configuration value or file.
var ErrConfig = errors.New("bad configuration")

// Error is a bad value: which key, what value, where it was set and what
// is allowed.
type Error struct {
	Key    string
	Value  string
	Source Source
	// Allowed says what values the key takes.
	Allowed string
	// Err is a detail, e.g. a parse error; may be nil.
	Err error
}

// Error reads `scenario = "Sever" (environment MLPERF_HOST_SCENARIO): want
// one of SingleStream, MultiStream, Server, Offline, Interactive`.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s = %q (%s)", e.Key, e.Value, e.Source)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Allowed != "" {
		fmt.Fprintf(&b, ": want %s", e.Allowed)
	}
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Is makes every *Error match ErrConfig.
func (e *Error) Is(target error) bool { return target == ErrConfig }

// FileError is a configuration file that cannot be read or parsed.
type FileError struct {
	Layer Layer
	Path  string
	Err   error
}

// Error reads "user.conf conf/user.conf: line 3: ...".
func (e *FileError) Error() string { return fmt.Sprintf("%s %s: %v", e.Layer, e.Path, e.Err) }

// Unwrap returns Err.
func (e *FileError) Unwrap() error { return e.Err }

// Is makes every *FileError match ErrConfig.
func (e *FileError) Is(target error) bool { return target == ErrConfig }
