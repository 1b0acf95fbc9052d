package goengine

import (
	"errors"
	"fmt"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

var (
	errUnsupported = engine.ErrUnsupported
	errInvalid     = engine.ErrInvalidModel
)

// NodeError reports a node that cannot be loaded or planned: an
// unsupported operator, attribute or opset, or inconsistent inputs. It
// wraps engine.ErrUnsupported or engine.ErrInvalidModel.
type NodeError struct {
	Node string // the node's name, or its index when it has none
	Op   string
	Err  error
}

// Error implements error.
func (e *NodeError) Error() string { return fmt.Sprintf("node %s (%s): %v", e.Node, e.Op, e.Err) }

// Unwrap returns the cause.
func (e *NodeError) Unwrap() error { return e.Err }

// unsupported returns an error wrapping engine.ErrUnsupported.
func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUnsupported, fmt.Sprintf(format, args...))
}

// invalid returns an error wrapping engine.ErrInvalidModel.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInvalid, fmt.Sprintf(format, args...))
}

func isUnsupported(err error) bool { return errors.Is(err, errUnsupported) }
