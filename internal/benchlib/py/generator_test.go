package py

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGenerator: the draws numpy 1.24's default_rng(seed) makes for
// integers(0, 2**32, size=5), three choice([True, False], size=1), four
// choice of five strings and choice(range(7), size=3), in that order (the
// values numpy printed).
func TestGenerator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		seed   uint64
		seeds  []uint64
		isTrue []bool
		of5    []int
		of7    []int
	}{
		{name: "zero", seed: 0, seeds: []uint64{3653403231, 2735729615, 2195314465, 1158725112, 1322117304},
			isTrue: []bool{true, true, true}, of5: []int{0, 4, 3, 4}, of7: []int{3, 4, 6}},
		{name: "reference seed", seed: 12345, seeds: []uint64{3003105693, 976400781, 3387213022, 1360466709, 876933081},
			isTrue: []bool{false, false, false}, of5: []int{4, 1, 4, 1}, of7: []int{3, 4, 1}},
		{name: "one word", seed: 4294967295, seeds: []uint64{819527071, 1082089385, 3110619138, 940880430, 3906526357},
			isTrue: []bool{true, true, false}, of5: []int{3, 4, 0, 1}, of7: []int{5, 3, 3}},
		// A seed of two 32-bit words.
		{name: "two words", seed: 1<<40 + 7, seeds: []uint64{886972842, 3564019232, 2617800309, 1096527305, 73059204},
			isTrue: []bool{true, false, false}, of5: []int{4, 3, 0, 2}, of7: []int{4, 0, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := NewGenerator(tt.seed)
			assert.Equal(t, tt.seeds, g.Seeds(5))
			var isTrue []bool
			for range 3 {
				isTrue = append(isTrue, g.Index(2) == 0)
			}
			assert.Equal(t, tt.isTrue, isTrue)
			var of5, of7 []int
			for range 4 {
				of5 = append(of5, g.Index(5))
			}
			for range 3 {
				of7 = append(of7, g.Index(7))
			}
			assert.Equal(t, tt.of5, of5)
			assert.Equal(t, tt.of7, of7)
		})
	}
}
