package rawort

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReply(t *testing.T) {
	t.Parallel()
	got, err := parseReply("ok 1500 1200 2000 1900\n", 2)
	require.NoError(t, err)
	assert.Equal(t, []Run{{1500 * time.Nanosecond, 1200 * time.Nanosecond}, {2000 * time.Nanosecond, 1900 * time.Nanosecond}}, got)
	for _, tt := range []struct {
		name, line string
		n          int
	}{
		{name: "error reply", line: "error: bad input\n", n: 1},
		{name: "too few numbers", line: "ok 1500 1200 2000\n", n: 2},
		{name: "not a number", line: "ok 1500 x\n", n: 1},
	} {
		_, err := parseReply(tt.line, tt.n)
		assert.Error(t, err, tt.name)
	}
}
