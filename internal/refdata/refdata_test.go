package refdata

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

func readAll(t *testing.T, d dataset.Dataset) [][]byte {
	t.Helper()
	var out [][]byte
	require.NoError(t, dataset.ReadAll(d, func(_ int, _ [][]int, data []byte) error {
		out = append(out, append([]byte(nil), data...))
		return nil
	}))
	return out
}
