//go:build !linux

package cost

import (
	"context"
	"errors"
)

// floorClient needs Linux's raw system calls; elsewhere the floor is not
// measured.
type floorClient struct{}

const floorAvailable = false

func newFloor(string, bool, int) (*floorClient, error) {
	return nil, errors.New("the floor client is Linux's alone")
}

func (*floorClient) do(context.Context, int, []int64) error { return errors.ErrUnsupported }
func (*floorClient) close()                                 {}
