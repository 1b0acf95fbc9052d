package loadgen

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormatDouble(t *testing.T) {
	t.Parallel()
	// Expected strings are what `std::cout << v` prints.
	tests := []struct {
		name string
		in   float64
		want string
	}{
		{name: "integral", in: 360, want: "360"},
		{name: "trailing zeros dropped", in: 359.930, want: "359.93"},
		{name: "six significant digits", in: 321.06712, want: "321.067"},
		{name: "fraction", in: 0.99, want: "0.99"},
		{name: "large", in: 1e6, want: "1e+06"},
		{name: "rounded large", in: 1234567, want: "1.23457e+06"},
		{name: "small", in: 1e-5, want: "1e-05"},
		{name: "zero", in: 0, want: "0"},
		{name: "infinity", in: math.Inf(1), want: "inf"},
		{name: "nan", in: math.NaN(), want: "nan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, formatDouble(tt.in))
			assert.Equal(t, tt.want, string(appendDouble(nil, tt.in)))
		})
	}
}

func TestFixed(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "90.0", fixed(0.9*100, 1))
	assert.Equal(t, "99.90", fixed(0.999*100, 2))
	assert.Equal(t, "65.75", fixed(65.7549, 2))
	assert.Equal(t, "inf", fixed(math.Inf(1), 2))
}

// TestDoubleValueJSON: a double that is not finite (the rate of a run that
// completed nothing) is null in the detail log, which must be JSON, and
// as C++ prints it in the summary.
func TestDoubleValueJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		in           float64
		detail, summ string
	}{
		{name: "finite", in: 2.5, detail: "2.5", summ: "2.5"},
		{name: "nan", in: math.NaN(), detail: "null", summ: "nan"},
		{name: "negative nan", in: math.Copysign(math.NaN(), -1), detail: "null", summ: "-nan"},
		{name: "inf", in: math.Inf(1), detail: "null", summ: "inf"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := string(vDouble(tt.in)(nil, true))
			assert.Equal(t, tt.detail, d)
			assert.True(t, json.Valid([]byte(`{"value": `+d+`}`)))
			assert.Equal(t, tt.summ, string(vDouble(tt.in)(nil, false)))
		})
	}
}
