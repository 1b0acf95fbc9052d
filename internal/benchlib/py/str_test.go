package py

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFloat: Python's repr of a float and numpy's str of a float32, as
// the interpreters print them: positional from 1e-4 up to 1e16, else
// scientific with a signed exponent of two digits or more.
func TestFloat(t *testing.T) {
	t.Parallel()
	a, b := 0.1, 0.2
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "integer", got: Float(2), want: "2.0"},
		{name: "zero", got: Float(0), want: "0.0"},
		{name: "shortest digits", got: Float(a + b), want: "0.30000000000000004"},
		{name: "smallest positional", got: Float(1e-4), want: "0.0001"},
		{name: "below 1e-4", got: Float(1e-9 / (3 + 2e-9)), want: "3.333333331111111e-10"},
		{name: "one digit exponent padded", got: Float(-1e-5), want: "-1e-05"},
		{name: "largest positional", got: Float(9999999999999998), want: "9999999999999998.0"},
		{name: "1e16", got: Float(1e16), want: "1e+16"},
		{name: "nan", got: Float(math.NaN()), want: "nan"},
		{name: "-inf", got: Float(math.Inf(-1)), want: "-inf"},
		{name: "float32 shortest", got: Float32(0.1), want: "0.1"},
		{name: "float32 integer", got: Float32(3), want: "3.0"},
		{name: "float32 below 1e-4", got: Float32(1e-5), want: "1e-05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.got)
		})
	}
}
