package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPublicSource(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{name: "absolute file", in: "user.conf /home/me/conf/demo.conf:1 (*.*.min_duration)", want: "user.conf demo.conf:1 (*.*.min_duration)"},
		{name: "relative file", in: "user.conf demo/user.conf:3 (*.Offline.target_qps)", want: "user.conf demo/user.conf:3 (*.Offline.target_qps)"},
		{name: "built in", in: "built-in mlperf.conf v6.1 (*.*.qsl_rng_seed)", want: "built-in mlperf.conf v6.1 (*.*.qsl_rng_seed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, publicSource(tt.in))
		})
	}
}
