package runner

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/config"
)

// migDevices lists a process's CUDA device (itself MIG instance 0 when
// first is set) and n MIG instances of the profiles given, as the
// tensorrt plugin lists them.
func migDevices(first bool, profiles ...string) []host.Device {
	d := host.Device{ID: 0, Name: "NVIDIA H100 80GB HBM3", Kind: "gpu", UUID: "GPU-00"}
	var out []host.Device
	for i, p := range profiles {
		m := host.Device{ID: i, Name: "NVIDIA H100 80GB HBM3 MIG " + p, Kind: migKind, UUID: fmt.Sprintf("MIG-%02d", i)}
		if i == 0 && first {
			m.Kind = "gpu"
		}
		out = append(out, m)
	}
	if !first {
		out = append([]host.Device{d}, out...)
	}
	return out
}

func TestMIGMembers(t *testing.T) {
	t.Parallel()
	seven := []string{"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"}
	for _, tc := range []struct {
		name    string
		mig     string
		devices []host.Device
		want    []string // the members' CUDA_VISIBLE_DEVICES
		wantErr string
	}{
		{name: "two instances", mig: "all", devices: migDevices(false, "3g.40gb", "3g.40gb"), want: []string{"MIG-00", "MIG-01"}},
		{name: "seven instances", mig: "all", devices: migDevices(false, seven...),
			want: []string{"MIG-00", "MIG-01", "MIG-02", "MIG-03", "MIG-04", "MIG-05", "MIG-06"}},
		// The plugin was itself given an instance: it is one of them.
		{name: "the plugin's own instance", mig: "all", devices: migDevices(true, "2g.20gb", "1g.10gb", "4g.40gb"),
			want: []string{"MIG-00", "MIG-01", "MIG-02"}},
		{name: "one profile", mig: "1g.10gb", devices: migDevices(false, "2g.20gb", "1g.10gb", "1g.10gb", "3g.40gb"),
			want: []string{"MIG-01", "MIG-02"}},
		{name: "no MIG", mig: "all", devices: migDevices(false), wantErr: "mig=all: the plugin lists no MIG instance"},
		{name: "no such profile", mig: "7g.80gb", devices: migDevices(false, "1g.10gb", "2g.20gb"),
			wantErr: "mig=7g.80gb: no MIG instance of that profile; the plugin lists NVIDIA H100 80GB HBM3 MIG 1g.10gb, NVIDIA H100 80GB HBM3 MIG 2g.20gb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := config.PoolMember{Name: "trt", Plugin: "tensorrt", MIG: tc.mig, Model: "x.plan",
				Env: map[string]string{"X": "1"}, Options: map[string]string{"streams": "4"}}
			got, err := migMembers(m, tc.devices)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, len(tc.want))
			for k, g := range got {
				assert.Equal(t, config.PoolMember{Name: fmt.Sprintf("trt-mig%d", k), Plugin: "tensorrt", Model: "x.plan",
					Env: map[string]string{"X": "1", "CUDA_VISIBLE_DEVICES": tc.want[k]}, Options: map[string]string{"streams": "4"}}, g)
			}
			assert.Equal(t, map[string]string{"X": "1"}, m.Env, "the member's own environment is its own")
		})
	}
}

// FuzzMIGMembers: whatever devices a plugin lists, each member made runs
// on a MIG UUID it listed, under a name of its own.
func FuzzMIGMembers(f *testing.F) {
	f.Add("all", "NVIDIA H100 80GB HBM3 MIG 1g.10gb", "MIG-1", "mig", "NVIDIA H100", "GPU-2", "gpu")
	f.Add("1g.10gb", " MIG 1g.10gb", "", "mig", "x MIG 1g.10gb", "MIG-", "gpu")
	f.Fuzz(func(t *testing.T, mig, name1, uuid1, kind1, name2, uuid2, kind2 string) {
		devices := []host.Device{{ID: 0, Name: name1, UUID: uuid1, Kind: kind1}, {ID: 1, Name: name2, UUID: uuid2, Kind: kind2}}
		got, err := migMembers(config.PoolMember{Name: "m", Plugin: "tensorrt", MIG: mig}, devices)
		if err != nil {
			return
		}
		names := map[string]bool{}
		for _, m := range got {
			cvd := m.Env["CUDA_VISIBLE_DEVICES"]
			if cvd != uuid1 && cvd != uuid2 || len(cvd) < len(migPrefix) || cvd[:len(migPrefix)] != migPrefix || names[m.Name] || m.MIG != "" {
				t.Fatalf("migMembers(%q, %v) = %v", mig, devices, got)
			}
			names[m.Name] = true
		}
	})
}
