package dlrmv3

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		set      RoundSet
		users    int
		requests []int
	}{
		// The last inference timestamp holds the remainder: 3 of 5 users.
		{name: "reference timestamps", set: RoundSet{Requests: 48, TotalTS: 100, Seed: 7}, users: 5, requests: []int{5, 5, 5, 5, 5, 5, 5, 5, 5, 3}},
		{name: "one inference timestamp", set: RoundSet{Requests: 6, TotalTS: 10, Seed: 1}, users: 6, requests: []int{6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.Equal(t, tt.users, tt.set.Users())
			require.NoError(t, tt.set.Write(dir))
			s, err := OpenStreaming(dir + "/" + SampledDir)
			require.NoError(t, err)
			assert.Equal(t, tt.requests, s.Requests)
			require.Equal(t, tt.set.Requests, s.Len())
			// The signature model: a candidate's prediction its id / 1024.
			var m Metrics
			for _, r := range resultsOf(t, s, func(id int64, history int) float32 {
				assert.Equal(t, 1, history)
				return float32(id) / 1024
			}) {
				require.Len(t, r.Labels, 2)
				assert.InDelta(t, 1, r.Labels[0]+r.Labels[1], 0, "one positive, one negative")
				m.Add(r)
			}
			// The closed targets: NE, accuracy and GAUC at least 0.866,
			// 0.6958 and 0.7858.
			assert.Greater(t, m.NE(), 0.866)
			assert.Less(t, m.NE(), 1.0)
			assert.InDelta(t, 1, m.Accuracy(), 1e-9)
			assert.InDelta(t, 1, m.GAUC(), 1e-9)
		})
	}
}
