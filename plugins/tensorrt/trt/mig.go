package trt

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// KindMIG is the Kind of an [sdk.Device] that is a MIG instance this
// process does not run on: Info lists every MIG instance NVML sees, for a
// pool to start one plugin process per instance
// (CUDA_VISIBLE_DEVICES=its UUID), where it is that process's device 0.
const KindMIG = "mig"

// migProfile returns the profile NVML's name of a MIG instance ends with,
// "1g.10gb" of "NVIDIA H100 80GB HBM3 MIG 1g.10gb"; "" when the name has
// no " MIG " part or nothing after it.
func migProfile(name string) string {
	i := strings.LastIndex(name, " MIG ")
	if i < 0 {
		return ""
	}
	p := strings.TrimSpace(name[i+len(" MIG "):])
	if p == "" || strings.ContainsAny(p, " \t") {
		return ""
	}
	return p
}

// parseMIGUUID reads the 16 bytes of a MIG UUID as drivers since R470
// write it, "MIG-8-4-4-4-12" hex digits: CUDA's cudaDeviceProp.uuid of the
// instance holds the same bytes. Older drivers' "MIG-GPU-<uuid>/GI/CI"
// form names no bytes of its own: false.
func parseMIGUUID(s string) ([16]byte, bool) {
	var out [16]byte
	rest, ok := strings.CutPrefix(s, "MIG-")
	if !ok || len(rest) != 36 {
		return out, false
	}
	for _, dash := range []int{8, 13, 18, 23} {
		if rest[dash] != '-' {
			return out, false
		}
	}
	h := strings.ReplaceAll(rest, "-", "")
	if len(h) != 32 {
		return out, false
	}
	if _, err := hex.Decode(out[:], []byte(h)); err != nil {
		return [16]byte{}, false
	}
	return out, true
}

// withMIG matches NVML's MIG instances with the CUDA devices: a CUDA
// device whose UUID is an instance's (this process was given that
// instance) takes the instance's UUID and name, which carries the profile;
// every other instance is listed after the CUDA devices as a device of
// kind [KindMIG], numbered on, with its GPU's PCI address and NUMA node.
// It returns the CUDA devices and the listed instances; mig maps a CUDA
// ordinal to its instance.
func withMIG(cudaDevs []sdk.Device, uuids map[int][16]byte, instances []migInstance, root string) (devs, listed []sdk.Device, mig map[int]migInstance) {
	mig = map[int]migInstance{}
	for _, in := range instances {
		b, ok := parseMIGUUID(in.UUID)
		matched := false
		for i := range cudaDevs {
			if u, has := uuids[cudaDevs[i].ID]; ok && has && u == b {
				cudaDevs[i].UUID, cudaDevs[i].Name = in.UUID, in.Name
				mig[cudaDevs[i].ID] = in
				matched = true
			}
		}
		if matched {
			continue
		}
		d := sdk.Device{ID: len(cudaDevs) + len(listed), Name: in.Name, Kind: KindMIG, MemoryBytes: in.MemoryBytes, UUID: in.UUID,
			Driver: fmt.Sprintf("MIG instance %s of GPU %d (%s); run on it with CUDA_VISIBLE_DEVICES=%s", in.Profile, in.GPU, in.GPUUUID, in.UUID)}
		if in.PCIBusID != "" {
			accel.ReadPCI(root, in.PCIBusID).Fill(&d)
		}
		listed = append(listed, d)
	}
	return cudaDevs, listed, mig
}

// withMIGHint adds to err, a selection of devices that are not CUDA
// devices of this process, how to run on those of them Info lists as MIG
// instances: each in a process of its own.
func withMIGHint(err error, selected []int, devices []sdk.Device) error {
	for _, d := range devices {
		if d.Kind == KindMIG && slices.Contains(selected, d.ID) {
			return fmt.Errorf("%w; device %d is MIG instance %s, which runs in a process of its own: "+
				"a pool member per instance (--pool 'tensorrt{mig=all}'), or CUDA_VISIBLE_DEVICES=%s", err, d.ID, d.UUID, d.UUID)
		}
	}
	return err
}
