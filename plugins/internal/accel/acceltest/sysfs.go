package acceltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// PCIFunction is one PCI function of a fake sysfs tree. Empty fields
// leave their files out, as a system that does not say.
type PCIFunction struct {
	// Address is its sysfs name, e.g. "0000:3b:00.0".
	Address string
	// NUMANode is the numa_node file ("-1" on a machine without NUMA).
	NUMANode string
	// Speed and Width are its max_link_speed ("32.0 GT/s PCIe") and
	// max_link_width ("16"); BridgeSpeed and BridgeWidth those of the port
	// above it.
	Speed, Width, BridgeSpeed, BridgeWidth string
	// Driver, when set, binds it to that driver
	// (bus/pci/drivers/DRIVER/ADDRESS).
	Driver string
}

// Sysfs writes a fake sysfs tree holding fns, each behind a bridge of its
// own, as Linux lays them out (bus/pci/devices/ADDRESS links into
// devices/), and returns its root.
func Sysfs(t testing.TB, fns ...PCIFunction) string {
	t.Helper()
	root := t.TempDir()
	write := func(dir, name, v string) {
		if v != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o644))
		}
	}
	devices := filepath.Join(root, "bus", "pci", "devices")
	require.NoError(t, os.MkdirAll(devices, 0o755))
	for _, f := range fns {
		bridge := filepath.Join("devices", "pci0000:00", "bridge-"+f.Address)
		dev := filepath.Join(bridge, f.Address)
		require.NoError(t, os.MkdirAll(filepath.Join(root, dev), 0o755))
		write(filepath.Join(root, dev), "numa_node", f.NUMANode)
		write(filepath.Join(root, dev), "max_link_speed", f.Speed)
		write(filepath.Join(root, dev), "max_link_width", f.Width)
		write(filepath.Join(root, bridge), "max_link_speed", f.BridgeSpeed)
		write(filepath.Join(root, bridge), "max_link_width", f.BridgeWidth)
		require.NoError(t, os.Symlink(filepath.Join("..", "..", "..", dev), filepath.Join(devices, f.Address)))
		if f.Driver != "" {
			drv := filepath.Join(root, "bus", "pci", "drivers", f.Driver)
			require.NoError(t, os.MkdirAll(drv, 0o755))
			require.NoError(t, os.Symlink(filepath.Join("..", "..", "..", "..", dev), filepath.Join(drv, f.Address)))
		}
	}
	return root
}
