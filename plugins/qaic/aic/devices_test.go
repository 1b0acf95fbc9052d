package aic

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// sysfs makes a sysfs tree in which the qaic driver holds n PCI functions.
func sysfs(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "bus", "pci", "drivers", "qaic")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i := range n {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("0000:%02x:00.0", i+1)), nil, 0o644))
	}
	// Not devices: the driver's own attributes.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bind"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new_id"), nil, 0o644))
	return root
}

// TestDiscoveryFindsEveryQID checks that discovery asks about every QID
// the runtime numbers: one per PCI function of the qaic driver (beyond any
// fixed probe range), and derived devices from QID 100.
func TestDiscoveryFindsEveryQID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cards   int // PCI functions the driver holds (0: none visible)
		devices int // QIDs the fake runtime answers for
		derived int
		probe   int
		want    []int
	}{
		{name: "40 functions, beyond a probe of 32", cards: 40, devices: 40, want: seqFrom(0, 40)},
		{name: "derived devices", cards: 2, devices: 2, derived: 2, want: []int{0, 1, 100, 101}},
		{name: "no driver visible: the first 64 and their derived QIDs", devices: 3, derived: 1,
			want: []int{0, 1, 2, 100}},
		{name: "an explicit probe range", cards: 40, devices: 40, probe: 5, want: seqFrom(0, 5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeQAic(t, tt.devices, 16)
			f.Call("fakeqaic_derive", uintptr(tt.derived))
			cfg := f.config()
			cfg.ProbeDevices, cfg.SysfsRoot = tt.probe, sysfs(t, tt.cards)
			if tt.cards == 0 {
				cfg.SysfsRoot = t.TempDir()
			}
			b, err := New(cfg)
			require.NoError(t, err)
			var got []int
			for _, d := range b.Info().Devices {
				got = append(got, d.ID)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func seqFrom(lo, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

// TestDevicesMustBeReady checks qaicGetDeviceInfo's status: a device still
// booting is left out of discovery, and selecting it fails Load.
func TestDevicesMustBeReady(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 3, 16)
	f.Call("fakeqaic_set_status", 1, uintptr(DeviceInitializing))
	b, err := New(f.config())
	require.NoError(t, err)
	var ids []int
	for _, d := range b.Info().Devices {
		ids = append(ids, d.ID)
	}
	assert.Equal(t, []int{0, 2}, ids)
	err = b.Load(t.Context(), sdk.Model{Bytes: qpc(1, 4, "input x 4", "output y 4"),
		Options: map[string]string{"devices": "1"}})
	require.ErrorIs(t, err, ErrNoDevice)
	assert.Contains(t, err.Error(), "device 1: device is QDS_INITIALIZING, not QDS_READY")
	require.NoError(t, b.Close())
}

func TestDescribeQIDs(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "0-63, 100-163", describe(append(seqFrom(0, 64), seqFrom(100, 64)...)))
	assert.Equal(t, "0, 2-3", describe([]int{0, 2, 3}))
	assert.Empty(t, describe(nil))
}
