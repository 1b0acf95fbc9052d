package accel

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// PCIDevice is what sysfs says of an accelerator's PCI function: where it
// is and how it reaches the host.
type PCIDevice struct {
	// Address is the function's PCI address as sysfs names it,
	// "0000:3b:00.0".
	Address string
	// NUMANode is the node nearest the device; -1 when the system has no
	// NUMA or does not say.
	NUMANode int
	// Link is the host link, e.g. "PCIe Gen5 x16": the fastest generation
	// and widest link both the device and the port above it support
	// (the current link of an idle GPU is trained down to save power, so
	// it is not read); "" when sysfs does not say.
	Link string
}

// ReadPCI reads what sysfs under root (normally "/sys") says of the PCI
// function at address, in any case and with a 4- or 8-digit domain
// (CUDA and NVML spell it differently). What sysfs does not say stays
// unknown; a function sysfs does not list gives only the address.
func ReadPCI(root, address string) PCIDevice {
	d := PCIDevice{Address: NormalizePCIAddress(address), NUMANode: -1}
	dir, err := filepath.EvalSymlinks(filepath.Join(root, "bus", "pci", "devices", d.Address))
	if err != nil {
		return d
	}
	if n, err := readInt(filepath.Join(dir, "numa_node")); err == nil && n >= 0 {
		d.NUMANode = n
	}
	gen, width := linkOf(dir)
	if up, upWidth := linkOf(filepath.Dir(dir)); up > 0 && upWidth > 0 {
		gen, width = min(gen, up), min(width, upWidth)
	}
	if gen > 0 && width > 0 {
		d.Link = fmt.Sprintf("PCIe Gen%d x%d", gen, width)
	}
	return d
}

// NormalizePCIAddress spells a PCI address as sysfs does: lower case,
// a 4-digit domain.
func NormalizePCIAddress(a string) string {
	a = strings.ToLower(strings.TrimSpace(a))
	if dom, rest, ok := strings.Cut(a, ":"); ok && len(dom) > 4 && strings.Trim(dom[:len(dom)-4], "0") == "" {
		a = dom[len(dom)-4:] + ":" + rest
	}
	return a
}

// linkOf reads the PCIe generation and width a device directory of sysfs
// says its link supports (max_link_speed, max_link_width); 0 when it does
// not say.
func linkOf(dir string) (gen, width int) {
	speed, err := os.ReadFile(filepath.Join(dir, "max_link_speed"))
	if err != nil {
		return 0, 0
	}
	width, err = readInt(filepath.Join(dir, "max_link_width"))
	if err != nil || width <= 0 {
		return 0, 0
	}
	return pcieGeneration(string(speed)), width
}

// pcieGeneration maps a sysfs link speed ("32.0 GT/s PCIe", "2.5 GT/s")
// to its PCIe generation; 0 for one it does not know.
func pcieGeneration(speed string) int {
	f := strings.Fields(speed)
	if len(f) == 0 {
		return 0
	}
	gts, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	for gen, s := range []float64{2.5, 5, 8, 16, 32, 64, 128} {
		if gts == s {
			return gen + 1
		}
	}
	return 0
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// Fill sets a device record's PCI address and, when known, its NUMA node.
func (p PCIDevice) Fill(d *sdk.Device) {
	d.PCIBusID = p.Address
	if p.NUMANode >= 0 {
		d.NUMANode, d.HasNUMANode = p.NUMANode, true
	}
}
