package py

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNumpyMeanAndRound: pairwise summation as numpy's (a value that
// sequential summation gets otherwise) and round half to even.
func TestNumpyMeanAndRound(t *testing.T) {
	t.Parallel()
	v := make([]float64, 200)
	for i := range v {
		v[i] = 0.1 * float64(i%7)
	}
	seq := 0.0
	for _, x := range v {
		seq += x
	}
	// numpy.mean([0.1*(i%7) for i in range(200)]) == 0.29700000000000004;
	// summed in order, 0.29700000000000015.
	assert.NotEqual(t, seq/200, NumpyMean(v))               //nolint:testifylint // exact: numpy's result to the last bit
	assert.Equal(t, 0.29700000000000004, NumpyMean(v))      //nolint:testifylint // exact: numpy's result to the last bit
	assert.Equal(t, 0.12, NumpyRound(0.125, 2))             //nolint:testifylint // exact: numpy's result to the last bit
	assert.Equal(t, 44.4312, NumpyRound(44.43115000001, 4)) //nolint:testifylint // exact: numpy's result to the last bit
}
