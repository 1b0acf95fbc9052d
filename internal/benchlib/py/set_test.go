package py

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIntSetOrderCPython: testdata/int_set_order.json holds lists of ints
// and list(set(keys)) as CPython 3.11 printed it (small and COCO-like
// ids, collisions, duplicates, a table grown several times).
func TestIntSetOrderCPython(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "int_set_order.json"))
	require.NoError(t, err)
	var cases []struct{ Keys, Order []int64 }
	require.NoError(t, json.Unmarshal(b, &cases))
	require.NotEmpty(t, cases)
	for i, c := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, c.Order, IntSetOrder(c.Keys))
		})
	}
}
