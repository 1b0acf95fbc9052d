package accel

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

type testConfig struct {
	Name    string
	N       int
	F       float64
	B       bool
	D       time.Duration
	Paths   []string
	Devices []int
	U       int
	Mode    int
	Auto    time.Duration // negative: the plugin chooses
}

var testOptions = []Option[testConfig]{
	StringOption("name", "", func(c *testConfig) *string { return &c.Name }),
	IntOption("n", "", func(c *testConfig) *int { return &c.N }),
	FloatOption("f", "", func(c *testConfig) *float64 { return &c.F }),
	BoolOption("b", "", func(c *testConfig) *bool { return &c.B }),
	DurationOption("d", "", func(c *testConfig) *time.Duration { return &c.D }),
	PathsOption("paths", "", func(c *testConfig) *[]string { return &c.Paths }),
	DevicesOption("devices", "", func(c *testConfig) *[]int { return &c.Devices }),
	UintOption("u", "", func(c *testConfig) *int { return &c.U }),
	EnumOption("mode", "how", map[string]int{"fast": 1, "slow": 2}, func(c *testConfig) *int { return &c.Mode }),
	DurationOption("auto", "", func(c *testConfig) *time.Duration { return &c.Auto }),
}

// TestSchema: every option is declared with its type and the default
// config's value, which Set reads back as it was.
func TestSchema(t *testing.T) {
	t.Parallel()
	defaults := testConfig{Name: "x", N: -3, F: 0.8, B: true, D: 30 * time.Second, Paths: []string{"/a", "b.so"},
		Devices: []int{0, 2, 3, 4}, U: 7, Mode: 2, Auto: -1}
	got := Schema(testOptions, defaults)
	want := []sdk.Option{
		{Name: "name", Type: abi.OptionString, Default: "x"},
		{Name: "n", Type: abi.OptionInt, Default: "-3"},
		{Name: "f", Type: abi.OptionFloat, Default: "0.8"},
		{Name: "b", Type: abi.OptionBool, Default: "true"},
		{Name: "d", Type: abi.OptionDuration, Default: "30s"},
		{Name: "paths", Type: abi.OptionPath, Default: "/a:b.so"},
		{Name: "devices", Type: abi.OptionString, Default: "0,2-4"},
		{Name: "u", Type: abi.OptionUint, Default: "7"},
		{Name: "mode", Type: abi.OptionEnum, Default: "slow", Allowed: []string{"fast", "slow"}, Doc: "how"},
		{Name: "auto", Type: abi.OptionDuration}, // no default: the plugin chooses
	}
	assert.Equal(t, want, got)
	var back testConfig
	for _, o := range got {
		if o.Default != "" {
			require.NoError(t, ApplyOptions(&back, testOptions, map[string]string{o.Name: o.Default}), o.Name)
		}
	}
	back.Auto = -1
	assert.Equal(t, defaults, back, "the defaults read back")
	assert.Equal(t, "all", Schema(testOptions, testConfig{})[6].Default, "no device list is every device")
}

func TestApplyOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    map[string]string
		want    testConfig
		wantErr []string
	}{
		{name: "none", want: testConfig{}},
		{name: "every kind", opts: map[string]string{
			"name": " x ", "n": "3", "f": "0.5", "b": "true", "d": "2s", "paths": "/a: /b :", "devices": "1,3-4",
		}, want: testConfig{Name: "x", N: 3, F: 0.5, B: true, D: 2 * time.Second, Paths: []string{"/a", "/b"},
			Devices: []int{1, 3, 4}}},
		// Every problem is reported at once, each naming its option.
		{name: "bad values", opts: map[string]string{"n": "x", "d": "soon", "devices": "2-1"},
			wantErr: []string{"option n:", "option d:", "runs backwards"}},
		{name: "typo", opts: map[string]string{"nn": "2"},
			wantErr: []string{"option nn: unknown option; valid options are name, n, f, b, d, paths, devices, u, mode, auto"}},
		{name: "out of range", opts: map[string]string{"u": "-1", "auto": "-2ms", "b": "yes"},
			wantErr: []string{"option u: want a non-negative integer", "option auto: want a duration", "option b: want true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c testConfig
			err := ApplyOptions(&c, testOptions, tt.opts)
			if tt.wantErr != nil {
				require.Error(t, err)
				for _, w := range tt.wantErr {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, c)
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
		{in: " 2 ,0,1", want: []int{2, 0, 1}},
		{in: "0-3", want: []int{0, 1, 2, 3}},
		{in: "5, 0-1 ,7", want: []int{5, 0, 1, 7}},
		{in: "0,0", wantErr: "device 0 listed twice"},
		{in: "1,0-2", wantErr: "device 1 listed twice"},
		{in: "4-2", wantErr: "runs backwards"},
		{in: "-1", wantErr: `device ""`},
		{in: "1,,2", wantErr: `device ""`},
		{in: "70000", wantErr: "outside"},
		{in: "a-b", wantErr: `device "a"`},
		{in: "gpu0", wantErr: `device "gpu0"`},
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
	for _, s := range []string{"", "all", "0", "0-3", "1,3-5,9", "2-1", "0,0", "65535", "1-65535", "-2",
		"9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDevices(s)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, d := range got {
			if d < 0 || d >= MaxDevice || seen[d] {
				t.Fatalf("ParseDevices(%q) = %v: out of range or repeated device", s, got)
			}
			seen[d] = true
		}
	})
}

func TestFormatDevices(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"all", "3", "2,0-1", "0-3", "5,0-1,7", "0-2,4-6,9"} {
		d, err := ParseDevices(in)
		require.NoError(t, err)
		assert.Equal(t, in, FormatDevices(d))
	}
	nodes, err := ParseNUMA("0-1:0-3,8&2:4-7")
	require.NoError(t, err)
	assert.Equal(t, "0-1:0-3,8&2:4-7", FormatNUMA(nodes))
	assert.Empty(t, FormatNUMA(nil))
}

func TestSelectDevices(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []int{0, 1, 2}, SelectDevices(nil, []int{0, 1, 2}), "nil wants every device")
	assert.Equal(t, []int{2, 0}, SelectDevices([]int{2, 5, 0}, []int{0, 1, 2}), "in the order wanted, missing dropped")
}

func TestDiscovered(t *testing.T) {
	t.Parallel()
	devices := []sdk.Device{{ID: 0}, {ID: 1}, {ID: 2}}
	assert.Equal(t, 6, Discovered(sdk.Info{}, devices, nil, nil, 2).MaxInFlight, "every device found")
	assert.Equal(t, 4, Discovered(sdk.Info{}, devices, nil, []int{2, 0, 7}, 2).MaxInFlight, "the wanted ones found")
	assert.Equal(t, 2, Discovered(sdk.Info{}, nil, nil, nil, 2).MaxInFlight, "one device when none is found")
	assert.Equal(t, devices, Discovered(sdk.Info{}, devices, nil, nil, 1).Devices)
	missing := &LibraryError{Plugin: "x", Library: "libx", Err: errors.New("gone")}
	assert.Contains(t, Discovered(sdk.Info{Description: "X"}, nil, missing, nil, 1).Description, "X (unavailable: x: cannot load libx")
	assert.Equal(t, "X (no devices: no driver)",
		Discovered(sdk.Info{Description: "X"}, nil, errors.New("no driver"), nil, 1).Description)
}

func TestParseNUMA(t *testing.T) {
	t.Parallel()
	nodes, err := ParseNUMA("0-1:0-3,8&2:4-7")
	require.NoError(t, err)
	assert.Equal(t, []NUMANode{{Devices: []int{0, 1}, CPUs: []int{0, 1, 2, 3, 8}}, {Devices: []int{2}, CPUs: []int{4, 5, 6, 7}}}, nodes)
	assert.Equal(t, 1, NodeOf(nodes, 2))
	assert.Equal(t, -1, NodeOf(nodes, 5))
	none, err := ParseNUMA(" ")
	require.NoError(t, err)
	assert.Nil(t, none)
	for in, want := range map[string]string{
		"0-1":     "want DEVICES:CPUS",
		":0-3":    "devices: none listed",
		"0:":      "cpus: none listed",
		"0:1&0:2": "device 0 is in two nodes",
		"0:a":     `device "a"`,
	} {
		_, err := ParseNUMA(in)
		assert.ErrorContains(t, err, want, in)
	}
}

func TestEnumOption(t *testing.T) {
	t.Parallel()
	type cfg struct{ Mode int }
	o := EnumOption("mode", "", map[string]int{"fast": 1, "slow": 2, "auto": 0}, func(c *cfg) *int { return &c.Mode })
	var c cfg
	require.NoError(t, o.Set(&c, "slow"))
	assert.Equal(t, 2, c.Mode)
	require.EqualError(t, o.Set(&c, "warp"), `want auto, fast or slow, got "warp"`)
}
