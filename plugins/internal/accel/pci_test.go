package accel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/sdk"
)

func TestReadPCI(t *testing.T) {
	t.Parallel()
	const addr = "0000:3b:00.0"
	tests := []struct {
		name string
		fn   acceltest.PCIFunction
		as   string
		want accel.PCIDevice
	}{
		{name: "H100 in a Gen5 slot", fn: acceltest.PCIFunction{NUMANode: "1", Speed: "32.0 GT/s PCIe", Width: "16",
			BridgeSpeed: "32.0 GT/s PCIe", BridgeWidth: "16"},
			as: "0000:3B:00.0", want: accel.PCIDevice{Address: addr, NUMANode: 1, Link: "PCIe Gen5 x16"}},
		{name: "a Gen5 card in a Gen4 x8 slot", fn: acceltest.PCIFunction{NUMANode: "0", Speed: "32.0 GT/s PCIe", Width: "16",
			BridgeSpeed: "16.0 GT/s PCIe", BridgeWidth: "8"},
			as: addr, want: accel.PCIDevice{Address: addr, NUMANode: 0, Link: "PCIe Gen4 x8"}},
		{name: "NVML's 8-digit domain; no NUMA; no bridge link", fn: acceltest.PCIFunction{NUMANode: "-1", Speed: "8.0 GT/s", Width: "8"},
			as: "00000000:3B:00.0", want: accel.PCIDevice{Address: addr, NUMANode: -1, Link: "PCIe Gen3 x8"}},
		{name: "sysfs says nothing", as: addr, want: accel.PCIDevice{Address: addr, NUMANode: -1}},
		{name: "an unknown speed", fn: acceltest.PCIFunction{Speed: "3.0 GT/s", Width: "16"}, as: addr,
			want: accel.PCIDevice{Address: addr, NUMANode: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn.Address = addr
			assert.Equal(t, tt.want, accel.ReadPCI(acceltest.Sysfs(t, tt.fn), tt.as))
		})
	}
	assert.Equal(t, accel.PCIDevice{Address: "0000:01:00.0", NUMANode: -1}, accel.ReadPCI(t.TempDir(), "0000:01:00.0"),
		"not in sysfs")

	var d sdk.Device
	accel.PCIDevice{Address: addr, NUMANode: 1}.Fill(&d)
	assert.Equal(t, sdk.Device{PCIBusID: addr, NUMANode: 1, HasNUMANode: true}, d)
	d = sdk.Device{}
	accel.PCIDevice{Address: addr, NUMANode: -1}.Fill(&d)
	assert.Equal(t, sdk.Device{PCIBusID: addr}, d, "an unknown node is not node 0")
}
