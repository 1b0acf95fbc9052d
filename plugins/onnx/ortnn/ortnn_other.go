//go:build !linux && !darwin

package ortnn

import (
	"context"
	"errors"
	"fmt"
)

// Errors of Load, SetInput, Compute and Output.
var (
	ErrInvalidModel = errors.New("invalid onnx model")
	ErrUnsupported  = errors.New("unsupported by engine")
	ErrUnavailable  = errors.New("engine unavailable")
	ErrInput        = errors.New("bad run tensors")
	ErrNoTensor     = errors.New("no such tensor")
)

// DefaultLibrary is empty: ONNX Runtime is bound on Linux and macOS only.
const DefaultLibrary = ""

// Version is the ONNX Runtime version of the other platforms' build.
const Version = "1.30.0"

// Runtime is unavailable on this platform.
type Runtime struct{}

// New returns a Runtime whose Load fails with ErrUnavailable.
func New(Config) (*Runtime, error) { return &Runtime{}, nil }

// Graph is a loaded model (never, here).
type Graph struct{}

// Context runs a graph (never, here).
type Context struct{}

// Load fails: ONNX Runtime is bound on Linux and macOS only.
func (*Runtime) Load(context.Context, []byte) (*Graph, error) {
	return nil, fmt.Errorf("%w: ONNX Runtime is bound on Linux and macOS only", ErrUnavailable)
}

func (*Graph) NewContext(context.Context) (*Context, error) { return nil, ErrUnavailable }
func (*Graph) Close() error                                 { return nil }
func (*Context) SetInput(int, Type, []int64, []byte) error  { return ErrUnavailable }
func (*Context) Compute(context.Context) error              { return ErrUnavailable }
func (*Context) Output(int) ([]byte, error)                 { return nil, ErrUnavailable }
func (*Context) Close() error                               { return nil }
