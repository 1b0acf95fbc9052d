package dataset

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewPrompts(t *testing.T) {
	t.Parallel()
	d, err := NewPrompts("data.pkl", "a form", [][]int32{{1, 2}, {70000}})
	require.NoError(t, err)
	assert.Equal(t, "input_ids int32[-1]", d.Schema().String())
	assert.Equal(t, "a form", Form(d))
	assert.Equal(t, "data.pkl", Truth(d))
	sh, err := d.Shapes(1)
	require.NoError(t, err)
	assert.Equal(t, [][]int{{1}}, sh)
	b := make([]byte, 4)
	require.NoError(t, d.ReadSample(1, b))
	assert.Equal(t, []byte{0x70, 0x11, 1, 0}, b)
	_, err = NewPrompts("data.pkl", "", [][]int32{{1}, {}})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.ErrorContains(t, err, "data.pkl: sample 1")
}
