package aic

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// sysfs makes a sysfs tree in which the qaic driver holds n PCI functions,
// 0000:01:00.0 and up, the first half on NUMA node 0 and the rest on 1,
// each on a PCIe Gen4 x8 link.
func sysfs(t *testing.T, n int) string {
	t.Helper()
	var fns []acceltest.PCIFunction
	for i := range n {
		fns = append(fns, acceltest.PCIFunction{Address: fmt.Sprintf("0000:%02x:00.0", i+1), Driver: "qaic",
			NUMANode: fmt.Sprint(2 * i / max(n, 1)), Speed: "16.0 GT/s PCIe", Width: "8"})
	}
	root := acceltest.Sysfs(t, fns...)
	dir := filepath.Join(root, "bus", "pci", "drivers", "qaic")
	require.NoError(t, os.MkdirAll(dir, 0o755))
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

// TestDeviceTopology: a card QID is the qaic driver's PCI function of the
// same rank; its record has that address and the function's NUMA node,
// and a derived device (a partition) has neither.
func TestDeviceTopology(t *testing.T) {
	t.Parallel()
	f := newFakeQAic(t, 4, 16)
	f.Call("fakeqaic_derive", 1)
	cfg := f.config()
	cfg.ProbeDevices, cfg.SysfsRoot = 0, sysfs(t, 4)
	b, err := New(cfg)
	require.NoError(t, err)
	devices := b.Info().Devices
	require.Len(t, devices, 5)
	assert.Equal(t, "0000:04:00.0", devices[3].PCIBusID)
	assert.True(t, devices[3].HasNUMANode)
	assert.Equal(t, 1, devices[3].NUMANode)
	assert.Equal(t, "0000:01:00.0", devices[0].PCIBusID)
	assert.Equal(t, 0, devices[0].NUMANode)
	assert.Equal(t, 100, devices[4].ID)
	assert.Empty(t, devices[4].PCIBusID, "a partition")
	assert.False(t, devices[4].HasNUMANode)

	// Four functions for three cards: which is which is not known.
	f = newFakeQAic(t, 3, 16)
	cfg = f.config()
	cfg.ProbeDevices, cfg.SysfsRoot = 0, sysfs(t, 4)
	b, err = New(cfg)
	require.NoError(t, err)
	for _, d := range b.Info().Devices {
		assert.Empty(t, d.PCIBusID, "device %d", d.ID)
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
