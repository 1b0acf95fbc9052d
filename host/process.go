package host

import (
	"context"
	"errors"
)

func openProcess(ctx context.Context, p Plugin, cfg Config) (Backend, error) {
	return nil, errors.New("todo")
}
