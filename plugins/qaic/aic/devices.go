package aic

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// DeviceStatus is a QDevStatus: whether a device finished booting.
type DeviceStatus int32

// QDevStatus values (QAicRuntimeTypes.h).
const (
	DeviceInitializing DeviceStatus = 0
	DeviceReady        DeviceStatus = 1
	DeviceFailed       DeviceStatus = 2
)

// String names the status as the runtime does.
func (s DeviceStatus) String() string {
	switch s {
	case DeviceInitializing:
		return "QDS_INITIALIZING"
	case DeviceReady:
		return "QDS_READY"
	case DeviceFailed:
		return "QDS_ERROR"
	}
	return fmt.Sprintf("QDevStatus(%d)", int32(s))
}

// derivedBase is the first QID the runtime gives derived devices
// (partitions of a card, made by resource-group reservations).
const derivedBase = 100

// fallbackProbe is how many card QIDs discovery tries when it cannot count
// the cards the qaic kernel driver holds.
const fallbackProbe = 64

// pciAddress matches a PCI device's name in sysfs, e.g. 0000:3b:00.0.
var pciAddress = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

// pciFunctions lists the PCI functions bound to the qaic kernel driver in
// address order, one per card QID: an Ultra card shows up as four. The
// runtime numbers card QIDs in this order.
func pciFunctions(sysfs string) []string {
	entries, err := os.ReadDir(filepath.Join(sysfs, "bus", "pci", "drivers", "qaic"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries { // ReadDir sorts by name: by address
		if pciAddress.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// candidates returns the QIDs discovery asks about: 0 to ProbeDevices-1
// when it is set; else every card QID the runtime numbers (0 to the count
// of cards the qaic driver holds, or fallbackProbe when it holds none the
// plugin can see), and as many derived-device QIDs from 100.
func candidates(cfg Config) []int {
	var out []int
	if cfg.ProbeDevices > 0 {
		for q := range cfg.ProbeDevices {
			out = append(out, q)
		}
		return out
	}
	n := len(pciFunctions(cfg.SysfsRoot))
	if n == 0 {
		n = fallbackProbe
	}
	for q := range n {
		out = append(out, q)
	}
	for q := range n {
		out = append(out, derivedBase+q)
	}
	return out
}

// discover asks the runtime about every candidate QID and lists those that
// answer and are ready (qaicGetDeviceInfo, where the runtime has it), with
// each card's PCI address and NUMA node (see placeCards).
func discover(rt runtimeAPI, cfg Config) []sdk.Device {
	version := rt.Version()
	var out []sdk.Device
	for _, q := range candidates(cfg) {
		r, err := rt.Resources(int32(q))
		if err != nil {
			continue
		}
		if err := ready(rt, int32(q)); err != nil {
			continue
		}
		name := fmt.Sprintf("Cloud AI 100 (QID %d)", q)
		if q >= derivedBase {
			name = fmt.Sprintf("Cloud AI 100 partition (QID %d)", q)
		}
		d := sdk.Device{
			ID:          q,
			Name:        name,
			Kind:        "aic",
			MemoryBytes: r.dramTotalMB << 20,
			Driver:      fmt.Sprintf("%s, %d NSPs (%d free)", version, r.nspTotal, r.nspFree),
		}
		out = append(out, d)
	}
	placeCards(out, cfg.SysfsRoot)
	return out
}

// placeCards fills in each card's PCI address and NUMA node from sysfs
// under root. The runtime numbers card QIDs in the address order of the
// PCI functions the qaic driver holds, which is an inference (the runtime
// does not say), so it is trusted only when the cards found are exactly
// QIDs 0 to n-1 for the driver's n functions; derived devices (partitions)
// have no function of their own.
func placeCards(devices []sdk.Device, root string) {
	fns := pciFunctions(root)
	cards := 0
	for _, d := range devices {
		if d.ID < derivedBase {
			if d.ID >= len(fns) {
				return
			}
			cards++
		}
	}
	if cards != len(fns) {
		return
	}
	for i := range devices {
		if d := &devices[i]; d.ID < derivedBase {
			accel.ReadPCI(root, fns[d.ID]).Fill(d)
		}
	}
}

// ready reports why device dev cannot run programs: it does not answer,
// or it has not finished booting (QDS_READY), when the runtime can say.
func ready(rt runtimeAPI, dev int32) error {
	s, ok, err := rt.DeviceStatus(dev)
	switch {
	case !ok:
		return nil
	case err != nil:
		return err
	case s != DeviceReady:
		return fmt.Errorf("device is %s, not QDS_READY", s)
	}
	return nil
}
