// Package datasettest helps the data set readers' tests.
//
// Package datasettest imports only the standard library, testify and
// package dataset; only tests import it.
package datasettest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// ReadAll reads every sample of d, each a copy.
func ReadAll(t testing.TB, d dataset.Dataset) [][]byte {
	t.Helper()
	var out [][]byte
	require.NoError(t, dataset.ReadAll(d, func(_ int, _ [][]int, data []byte) error {
		out = append(out, append([]byte(nil), data...))
		return nil
	}))
	return out
}
