package aic

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    map[string]string
		want    func(c *Config)
		wantErr []string
	}{
		{name: "none", opts: nil, want: func(*Config) {}},
		{name: "every option", opts: map[string]string{
			"qpc": "/q/resnet50", "devices": "0,2-3", "activations": "3", "set_size": "4", "batch_size": "8",
			"queue_threads": "2", "wait_timeout": "5s", "probe_devices": "4", "library": "/a/libQAic.so: libQAic.so",
		}, want: func(c *Config) {
			c.QPC, c.Devices, c.Activations, c.SetSize, c.BatchSize = "/q/resnet50", []int{0, 2, 3}, 3, 4, 8
			c.QueueThreads, c.WaitTimeout, c.ProbeDevices = 2, 5*time.Second, 4
			c.LibraryPaths = []string{"/a/libQAic.so", "libQAic.so"}
		}},
		// Every problem is reported at once.
		{name: "bad values", opts: map[string]string{"set_size": "two", "wait_timeout": "soon", "devices": "3-1"},
			wantErr: []string{"set_size", "wait_timeout", "runs backwards"}},
		{name: "out of range", opts: map[string]string{"activations": "0", "wait_timeout": "2h"},
			wantErr: []string{"activations must be at least 1", "wait_timeout must be between"}},
		{name: "typo", opts: map[string]string{"activation": "2"}, wantErr: []string{"option activation: unknown", "activations"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := DefaultConfig()
			got, err := base.WithOptions(tt.opts)
			if tt.wantErr != nil {
				require.Error(t, err)
				for _, w := range tt.wantErr {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			want := DefaultConfig()
			tt.want(&want)
			assert.Equal(t, want, got)
			assert.Equal(t, DefaultConfig(), base, "WithOptions never modifies its receiver")
		})
	}
}
