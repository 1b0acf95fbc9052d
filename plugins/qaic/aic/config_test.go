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

func TestParseDevices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{in: "", want: nil},
		{in: "all", want: nil},
		{in: "3", want: []int{3}},
		{in: "0-3", want: []int{0, 1, 2, 3}},
		{in: "5, 0-1 ,7", want: []int{5, 0, 1, 7}},
		{in: "1,0-2", wantErr: "device 1 listed twice"},
		{in: "4-2", wantErr: "runs backwards"},
		{in: "-1", wantErr: `device ""`},
		{in: "70000", wantErr: "outside"},
		{in: "a-b", wantErr: `device "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDevices(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseDevices(f *testing.F) {
	for _, s := range []string{"", "all", "0", "0-3", "1,3-5,9", "2-1", "0,0", "65535", "1-65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDevices(s)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, d := range got {
			if d < 0 || d >= maxQID || seen[d] {
				t.Fatalf("ParseDevices(%q) = %v: out of range or repeated QID", s, got)
			}
			seen[d] = true
		}
	})
}
