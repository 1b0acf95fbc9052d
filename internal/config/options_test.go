package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScenarioPluginOptions(t *testing.T) {
	t.Parallel()
	file := write(t, "run.yaml", `
options:
  tensorrt:
    streams: 2
    batch_size: 1
    Server:
      batch_size: 64
      batch_timeout: 2ms
    Offline:
      batch_size: 2048
`)
	tests := []struct {
		name     string
		scenario string
		environ  []string
		flags    []FlagValue
		want     map[string]string
		source   map[string]string // option -> its source, where it matters
	}{
		{name: "every scenario's", scenario: "SingleStream",
			want: map[string]string{"streams": "2", "batch_size": "1"}},
		{name: "Server's own win", scenario: "Server",
			want: map[string]string{"streams": "2", "batch_size": "64", "batch_timeout": "2ms"}},
		{name: "Offline's own", scenario: "Offline",
			want: map[string]string{"streams": "2", "batch_size": "2048"}},
		// The environment is upper-case: the scenario matches regardless.
		{name: "environment", scenario: "Server", environ: []string{"MLPERF_HOST_OPTIONS__TENSORRT__SERVER__BATCH_SIZE=128"},
			want:   map[string]string{"streams": "2", "batch_size": "128", "batch_timeout": "2ms"},
			source: map[string]string{"batch_size": "environment MLPERF_HOST_OPTIONS__TENSORRT__SERVER__BATCH_SIZE"}},
		// A flag for every scenario does not beat the scenario's own.
		{name: "flags", scenario: "Server", flags: []FlagValue{
			{Key: "options.tensorrt.batch_size", Value: "8", Flag: "--set tensorrt.batch_size=8"},
			{Key: "options.tensorrt.Server.streams", Value: "4", Flag: "--set tensorrt.Server.streams=4"}},
			want:   map[string]string{"streams": "4", "batch_size": "64", "batch_timeout": "2ms"},
			source: map[string]string{"streams": "flag --set tensorrt.Server.streams=4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(Inputs{ConfigFile: file, ReadConf: fakeConf,
				Environ: append([]string{"MLPERF_HOST_SCENARIO=" + tt.scenario}, tt.environ...), Flags: tt.flags})
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.PluginOptions("tensorrt"))
			for _, v := range c.PluginOptionValues("tensorrt") {
				if src, ok := tt.source[v.Key]; ok {
					assert.Equal(t, src, v.Source.String(), v.Key)
				}
			}
		})
	}
}

func TestSetKeyScenarioOption(t *testing.T) {
	t.Parallel()
	k, err := SetKey("tensorrt.Server.batch_size")
	require.NoError(t, err)
	assert.Equal(t, "options.tensorrt.Server.batch_size", k)
}
