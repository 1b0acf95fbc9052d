package loadgen

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAcceptedValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "decimal", in: "1024", want: true},
		{name: "negative", in: "-1", want: true},
		{name: "hex", in: "0x1F", want: true},
		{name: "octal", in: "017", want: true},
		// strtoul stops at 8, strtod takes it whole.
		{name: "bad octal is a double", in: "08", want: true},
		{name: "fraction", in: "1.5", want: true},
		{name: "leading dot", in: ".5", want: true},
		{name: "exponent", in: "1e3", want: true},
		{name: "infinity", in: "inf", want: true},
		{name: "nan", in: "NaN", want: true},
		{name: "hex float", in: "0x1.8p1", want: true},
		{name: "word", in: "true", want: false},
		{name: "trailing junk", in: "5ms", want: false},
		{name: "dangling exponent", in: "1e", want: false},
		{name: "lone sign", in: "-", want: false},
		{name: "comment", in: "#", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, acceptedValue(tt.in))
		})
	}
}

func TestStrtoull(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want uint64
	}{
		{name: "seed", in: "14771362308971278857", want: 14771362308971278857},
		{name: "prefix of a double", in: "2.5", want: 2},
		{name: "bad octal reads zero", in: "08", want: 0},
		{name: "hex", in: "0x10", want: 16},
		{name: "minus wraps", in: "-1", want: math.MaxUint64},
		{name: "overflow saturates", in: "99999999999999999999", want: math.MaxUint64},
		{name: "nothing", in: "x", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, strtoull(tt.in))
		})
	}
}

func TestStrtod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want float64
	}{
		{name: "integer", in: "90", want: 90},
		{name: "fraction", in: "99.9", want: 99.9},
		{name: "hex float without exponent", in: "0x1.8", want: 1.5},
		{name: "infinity", in: "-infinity", want: math.Inf(-1)},
		{name: "prefix", in: "12abc", want: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Bit for bit, as C's strtod.
			assert.Equal(t, math.Float64bits(tt.want), math.Float64bits(strtod(tt.in)))
		})
	}
	assert.True(t, math.IsNaN(strtod("nan(123)")))
}
