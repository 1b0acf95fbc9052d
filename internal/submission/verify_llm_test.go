package submission

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auditValue reads "*.*.key = value" of a case's audit.config, as the
// TEST07 and TEST09 scripts do.
func auditValue(t *testing.T, dir, key string) float64 {
	t.Helper()
	for _, line := range strings.Split(read(t, filepath.Join(dir, "audit.config")), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "*.*."+key {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			require.NoError(t, err)
			return f
		}
	}
	require.Failf(t, "no such line", "%s: *.*.%s", dir, key)
	return 0
}

func TestVerifyTEST07AsOfficial(t *testing.T) {
	t.Parallel()
	verifyCases(t, "test07", func(t *testing.T, dir string) Verdict {
		return VerifyTEST07(read(t, filepath.Join(dir, "output.txt")), auditValue(t, dir, "test07_accuracy_threshold"), TEST07Pattern)
	})
}

func TestVerifyTEST09AsOfficial(t *testing.T) {
	t.Parallel()
	verifyCases(t, "test09", func(t *testing.T, dir string) Verdict {
		v, err := VerifyTEST09(open(t, filepath.Join(dir, AccuracyFile)),
			auditValue(t, dir, "test09_min_output_tokens"), auditValue(t, dir, "test09_max_output_tokens"))
		require.NoError(t, err)
		return v
	})
}

func TestVerifyTEST09Errors(t *testing.T) {
	t.Parallel()
	for _, log := range []string{"[]", "{}", "not json", `[1, 2]`} {
		_, err := VerifyTEST09(strings.NewReader(log), 1, 2)
		assert.Error(t, err, log)
	}
}

// tokens hex-encodes int32 tokens as an accuracy log's data.
func tokens(ids ...int32) string {
	b := make([]byte, 4*len(ids))
	for i, id := range ids {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(id))
	}
	return hex.EncodeToString(b)
}

// TestVerifyTEST06EOSIDs: with Llama 3.1's three end tokens, an output
// that ends on two of them fails, whichever two; one, or one before the
// end, passes. The script, given one id, checks that one.
func TestVerifyTEST06EOSIDs(t *testing.T) {
	t.Parallel()
	llama31 := []int64{128001, 128008, 128009}
	tests := []struct {
		name string
		eos  []int64
		data string
		pass bool
	}{
		{name: "one end token", eos: llama31, data: tokens(5, 6, 128009), pass: true},
		{name: "eot twice", eos: llama31, data: tokens(5, 6, 128009, 128009)},
		{name: "eom then eot", eos: llama31, data: tokens(5, 128008, 128009)},
		{name: "end token inside", eos: llama31, data: tokens(128009, 5, 128001, 6), pass: true},
		// The script's loop stops before the first token.
		{name: "two tokens, both end tokens, first not looked at", eos: llama31, data: tokens(128001, 128009), pass: true},
		{name: "Llama 2's id only", eos: []int64{2}, data: tokens(5, 128009, 128009), pass: true},
		{name: "Llama 2 twice", eos: []int64{2}, data: tokens(5, 2, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := fmt.Sprintf(`[{"seq_id": 0, "qsl_idx": 0, "data": %q, "token_count": %d}]`, tt.data, len(tt.data)/8)
			v, err := VerifyTEST06(strings.NewReader(log), "Offline", Int32, tt.eos)
			require.NoError(t, err)
			assert.Equal(t, tt.pass, v.Pass, v.Text)
			assert.Contains(t, v.Text, "EOS check pass: "+pyBool(tt.pass)+"\n")
		})
	}
}
