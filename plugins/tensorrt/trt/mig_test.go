package trt

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel/acceltest"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// newNVML links a private copy of the fake NVML describing spec (see
// fakenvml.c) and returns it and its path.
func newNVML(t *testing.T, spec string) (*acceltest.Lib, string) {
	t.Helper()
	fakeObjects.Dir(t)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("libfakenvml%d.so", acceltest.NextCopy()))
	acceltest.Link(t, path, fakeObjects.Object("fakenvml.c"))
	lib := acceltest.Open(t, path)
	cs := native.CString(spec)
	lib.Call("fakenvml_configure", uintptr(unsafe.Pointer(&cs[0])))
	return lib, path
}

// migUUID is the fake NVML's UUID of instance s of GPU g.
func migUUID(g, s int) string {
	return fmt.Sprintf("MIG-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae%02x", g*8+s)
}

// TestMIGInstancesListed: Info lists every MIG instance NVML sees, 2 to 7
// on a GPU, beside the CUDA devices: the CUDA device that is an instance
// (this process was given it) under the instance's UUID and name, the
// others as devices of kind mig with their UUID, profile, memory and GPU;
// they count for no lanes. NVML is shut down after.
func TestMIGInstancesListed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec string
		// profiles are the instances' in NVML's order, gpus their GPUs.
		profiles []string
		gpus     []int
	}{
		{name: "two instances", spec: "3g.40gb,3g.40gb", profiles: []string{"3g.40gb", "3g.40gb"}, gpus: []int{0, 0}},
		{name: "seven instances", spec: "1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb",
			profiles: []string{"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"}, gpus: []int{0, 0, 0, 0, 0, 0, 0}},
		// GPUs without MIG, or with it off, have none; a GPU's empty slots
		// are skipped.
		{name: "mixed GPUs", spec: "2g.20gb,1g.10gb;none;off;4g.40gb,3g.40gb", profiles: []string{"2g.20gb", "1g.10gb", "4g.40gb", "3g.40gb"},
			gpus: []int{0, 0, 3, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, 1, 1<<30)
			nvml, path := newNVML(t, tt.spec)
			cfg := f.config()
			cfg.NVMLPaths = []string{path}
			cfg.SysfsRoot = acceltest.Sysfs(t, acceltest.PCIFunction{Address: "0000:3e:00.0", NUMANode: "1"})
			b, err := New(cfg)
			require.NoError(t, err)
			info := b.Info()
			assert.Equal(t, 2, info.MaxInFlight, "the listed instances are no devices of this process")
			require.Len(t, info.Devices, len(tt.profiles))
			gpu0 := info.Devices[0]
			assert.Equal(t, "gpu", gpu0.Kind)
			assert.Equal(t, migUUID(0, 0), gpu0.UUID, "CUDA device 0 is GPU 0's first instance")
			assert.Equal(t, "NVIDIA H100 80GB HBM3 MIG "+tt.profiles[0], gpu0.Name)
			slot := map[int]int{}
			for i, d := range info.Devices {
				g := tt.gpus[i]
				s := slot[g]
				slot[g]++
				if i == 0 {
					continue
				}
				assert.Equal(t, i, d.ID)
				assert.Equal(t, KindMIG, d.Kind)
				assert.Equal(t, migUUID(g, s), d.UUID)
				assert.Equal(t, "NVIDIA H100 80GB HBM3 MIG "+tt.profiles[i], d.Name)
				var gib uint64
				_, err := fmt.Sscanf(tt.profiles[i][strings.Index(tt.profiles[i], ".")+1:], "%dgb", &gib)
				require.NoError(t, err)
				assert.Equal(t, gib<<30, d.MemoryBytes)
				assert.Equal(t, fmt.Sprintf("0000:%02x:00.0", 0x3b+g), d.PCIBusID, "its GPU's PCI address")
				assert.Equal(t, g == 3, d.HasNUMANode, "sysfs knows GPU 3's node")
				assert.Contains(t, d.Driver, fmt.Sprintf("MIG instance %s of GPU %d (GPU-", tt.profiles[i], g))
				assert.Contains(t, d.Driver, "CUDA_VISIBLE_DEVICES="+migUUID(g, s))
			}
			assert.Zero(t, nvml.Call("fakenvml_inits"), "every nvmlInit_v2 has its nvmlShutdown")
		})
	}
}

// TestMIGFacts: the submission facts name a MIG instance with its profile.
func TestMIGFacts(t *testing.T) {
	t.Parallel()
	f := newFake(t, 1, 1<<30)
	_, path := newNVML(t, "1g.10gb,2g.20gb")
	cfg := f.config()
	cfg.NVMLPaths = []string{path}
	b, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	require.NoError(t, b.Load(t.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple)}))
	facts := b.SubmissionFacts()
	assert.Equal(t, "NVIDIA H100 80GB HBM3 MIG 1g.10gb", facts.AcceleratorModelName)
	assert.Equal(t, []int{0}, facts.DevicesUsed)

	// A listed instance is no device of this process: selecting it says how
	// to run on it.
	other, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close() })
	err = other.Load(t.Context(), sdk.Model{Bytes: fakePlan(planSimple, outSimple), Options: map[string]string{"devices": "1"}})
	require.ErrorIs(t, err, ErrNoDevice)
	assert.ErrorContains(t, err, "device 1 is MIG instance "+migUUID(0, 1)+", which runs in a process of its own")
}

// TestNoNVML: without NVML no instance is listed and nothing fails.
func TestNoNVML(t *testing.T) {
	t.Parallel()
	f := newFake(t, 2, 1<<30)
	cfg := f.config()
	cfg.NVMLPaths = []string{filepath.Join(t.TempDir(), "libnvidia-ml.so.1")}
	b, err := New(cfg)
	require.NoError(t, err)
	info := b.Info()
	require.Len(t, info.Devices, 2)
	assert.NotContains(t, info.Description, "MIG")
}

func TestParseMIGUUID(t *testing.T) {
	t.Parallel()
	got, ok := parseMIGUUID("MIG-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae05")
	require.True(t, ok)
	assert.Equal(t, "GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae05", uuidString(got), "the bytes CUDA reports")
	for _, bad := range []string{"", "GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae05", "MIG-GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae05/1/0",
		"MIG-a0a1a2a3a4a5-a6a7-a8a9-aaabacadae05", "MIG-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeZZ"} {
		_, ok := parseMIGUUID(bad)
		assert.False(t, ok, bad)
	}
	assert.Equal(t, "1g.10gb", migProfile("NVIDIA H100 80GB HBM3 MIG 1g.10gb"))
	assert.Equal(t, "1c.2g.20gb", migProfile("NVIDIA A100-SXM4-40GB MIG 1c.2g.20gb"))
	assert.Empty(t, migProfile("NVIDIA H100 80GB HBM3"))
	assert.Empty(t, migProfile("NVIDIA H100 MIG "))
}

// FuzzParseMIGUUID: a UUID that parses formats back to itself.
func FuzzParseMIGUUID(f *testing.F) {
	for _, s := range []string{"MIG-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadae05", "MIG-GPU-x/1/0", "MIG-", "MIG-zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, ok := parseMIGUUID(s)
		if !ok {
			return
		}
		if got := "MIG-" + strings.TrimPrefix(uuidString(b), "GPU-"); !strings.EqualFold(got, s) {
			t.Fatalf("parseMIGUUID(%q) = %x, which formats as %q", s, b, got)
		}
	})
}

// FuzzMIGProfile: a profile is one word at the end of the name.
func FuzzMIGProfile(f *testing.F) {
	for _, s := range []string{"NVIDIA H100 80GB HBM3 MIG 1g.10gb", "MIG 1g", " MIG ", "x MIG a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := migProfile(s)
		if p != "" && (strings.ContainsAny(p, " \t") || !strings.HasSuffix(strings.TrimSpace(s), p)) {
			t.Fatalf("migProfile(%q) = %q", s, p)
		}
	})
}
