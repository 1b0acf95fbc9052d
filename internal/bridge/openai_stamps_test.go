package bridge

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/host/hosttest"
	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
)

// TestFirstStampsDelays: first tokens are stamped by the index their id
// was issued with, and the n-th request of a prompt in the server's log
// is matched to the n-th first token of its sample; a request without a
// first token, a first token without a request, or a body not of a
// prompt is an error.
func TestFirstStampsDelays(t *testing.T) {
	t.Parallel()
	st := newFirstStamps(hosttest.New(host.Info{Name: "x"}))
	var firsts, completes []uint64
	rec := host.HandlerFuncs{
		OnFirstToken: func(batch []host.Completion) {
			for _, c := range batch {
				firsts = append(firsts, c.ID)
			}
		},
		OnComplete: func(batch []host.Completion) {
			for _, c := range batch {
				completes = append(completes, c.ID)
			}
		},
	}
	st.SetHandler(rec) // the fake completes each sample as it is issued
	require.NoError(t, st.Issue(t.Context(), []abi.IssueRecord{{ID: 10, Index: 7}, {ID: 11, Index: 7}, {ID: 12, Index: 3}}))
	assert.Equal(t, []uint64{10, 11, 12}, completes, "completions go on to the LoadGen")
	h := stampingHandler{rec, st}
	h.FirstTokens([]host.Completion{{ID: 10}, {ID: 12}})
	h.FirstTokens([]host.Completion{{ID: 11}})
	assert.Equal(t, []uint64{10, 12, 11}, firsts, "first tokens go on to the LoadGen")
	f7, f3 := st.firsts[7], st.firsts[3]
	require.Len(t, f7, 2)
	require.Len(t, f3, 1)

	log := []openaitest.LogEntry{
		{Body: `{"prompt":[1,7]}`, FirstFrame: f7[0] - 100},
		{Body: `{"prompt":[1,3]}`, FirstFrame: f3[0] - 200},
		{Body: `{"prompt":[1,7]}`, FirstFrame: f7[1] - 300},
	}
	d, err := st.delays(log)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{100, 200, 300}, d)

	_, err = st.delays(log[:2])
	require.ErrorContains(t, err, "3 first tokens for 2 requests")
	_, err = st.delays(append(log, openaitest.LogEntry{Body: `{"prompt":[1,3]}`, FirstFrame: 1}))
	require.ErrorContains(t, err, "sample 3: request 2 has no first token")
	_, err = st.delays([]openaitest.LogEntry{{Body: `{"messages":[]}`, FirstFrame: 1}})
	require.ErrorContains(t, err, "a request not of this run")

	st.reset()
	d, err = st.delays(nil)
	require.NoError(t, err)
	assert.Empty(t, d, "reset forgets the stamps")
}
