package sdk

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEnvOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		environ []string
		want    map[string]string
	}{
		{name: "none", environ: []string{"PATH=/bin", "HOME=/root"}, want: map[string]string{}},
		{name: "options lower-cased", environ: []string{"MLPERF_X_BATCH_SIZE=8", "MLPERF_X_LIB=/a:/b"},
			want: map[string]string{"batch_size": "8", "lib": "/a:/b"}},
		{name: "value with =", environ: []string{"MLPERF_X_ENGINE=/m/a=b.plan"},
			want: map[string]string{"engine": "/m/a=b.plan"}},
		{name: "prefix alone and other plugins ignored", environ: []string{"MLPERF_X_=1", "MLPERF_Y_SET_SIZE=2", "MLPERF_X"},
			want: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, EnvOptions(tt.environ, "MLPERF_X_"))
		})
	}
}
