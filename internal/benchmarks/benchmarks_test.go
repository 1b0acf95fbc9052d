package benchmarks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query, want string
		err               bool
	}{
		{name: "conf key", query: "resnet50", want: "resnet50"},
		{name: "submission name", query: "resnet", want: "resnet50"},
		{name: "demo", query: DemoName, want: DemoName},
		{name: "unknown", query: "resnet51", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := Lookup(tt.query)
			if tt.err {
				require.ErrorIs(t, err, ErrUnknown)
				assert.Contains(t, err.Error(), "resnet50, retinanet")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, b.Name)
		})
	}
}

func TestTableIsConsistent(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, b := range All() {
		assert.False(t, seen[b.Name], "duplicate %s", b.Name)
		seen[b.Name] = true
		assert.Positive(t, b.DatasetSize, b.Name)
		assert.Positive(t, b.PerformanceSampleCount, b.Name)
		assert.LessOrEqual(t, b.PerformanceSampleCount, b.DatasetSize, b.Name)
		assert.Positive(t, b.Quality.Target(), b.Name)
		assert.NotEmpty(t, b.Required, b.Name)
		for _, sc := range b.Required {
			for _, s := range sc {
				assert.Contains(t, Scenarios(), s, b.Name)
				if s == Server {
					assert.Positive(t, b.ServerLatency, "%s requires Server without a latency bound", b.Name)
				}
			}
		}
	}
}

func TestResNet50(t *testing.T) {
	t.Parallel()
	b, err := Lookup("resnet50")
	require.NoError(t, err)
	// The official submission checker's figures.
	assert.InDelta(t, 75.6954, b.Quality.Target(), 1e-9)
	assert.Equal(t, 1024, b.PerformanceSampleCount)
	assert.Equal(t, 50000, b.DatasetSize)
	assert.Equal(t, []Scenario{SingleStream, MultiStream, Offline}, b.Requires(Edge))
	assert.Equal(t, "acc >= 75.6954 (99% of 76.46)", b.Quality.String())
}
