package submission

import (
	"encoding/binary"
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// dimm is an SMBIOS type 17 record: size in MB, DDR type, speed in MT/s.
func dimm(mb uint16, typ byte, speed uint16) []byte {
	b := make([]byte, 0x28)
	b[0] = 17
	binary.LittleEndian.PutUint16(b[0x0C:], mb)
	b[0x12] = typ
	binary.LittleEndian.PutUint16(b[0x15:], speed)
	binary.LittleEndian.PutUint16(b[0x20:], speed)
	return b
}

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestDetectSystem(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"proc/cpuinfo": file("processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\nphysical id\t: 0\ncpu cores\t: 96\ncpu MHz\t\t: 2400.000\n" +
			"processor\t: 1\nmodel name\t: AMD EPYC 9654 96-Core Processor\nphysical id\t: 1\ncpu cores\t: 96\n"),
		"sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq": file("3709000\n"),
		"sys/devices/system/cpu/cpu0/cache/index0/level":       file("1\n"),
		"sys/devices/system/cpu/cpu0/cache/index0/type":        file("Data\n"),
		"sys/devices/system/cpu/cpu0/cache/index0/size":        file("32K\n"),
		"sys/devices/system/cpu/cpu0/cache/index3/level":       file("3\n"),
		"sys/devices/system/cpu/cpu0/cache/index3/type":        file("Unified\n"),
		"sys/devices/system/cpu/cpu0/cache/index3/size":        file("32768K\n"),
		"proc/meminfo":                      file("MemTotal:       1584000000 kB\nMemFree: 1 kB\n"),
		"sys/firmware/dmi/entries/17-0/raw": {Data: dimm(0x7FFF, 0x22, 4800)},
		"sys/firmware/dmi/entries/17-1/raw": {Data: dimm(0, 0, 0)}, // an empty slot
		"sys/firmware/dmi/entries/17-2/raw": {Data: dimm(0x7FFF, 0x22, 4800)},
		"sys/firmware/dmi/entries/16-0/raw": {Data: []byte{16}},
		"sys/block/nvme0n1/size":            file("7501476528\n"),
		"sys/block/loop0/size":              file("100\n"),
		"sys/block/sda/size":                file("1000000\n"),
		"sys/block/sda/queue/rotational":    file("1\n"),
		"sys/class/net/eth0/device/vendor":  file("0x15b3\n"),
		"sys/class/net/eth0/speed":          file("100000\n"),
		"sys/class/net/eth0/type":           file("1\n"),
		"sys/class/net/ib0/device/vendor":   file("0x15b3\n"),
		"sys/class/net/ib0/speed":           file("400000\n"),
		"sys/class/net/ib0/type":            file("32\n"),
		"sys/class/net/docker0/type":        file("1\n"), // virtual: no device
		"sys/class/net/lo/type":             file("772\n"),
		"etc/os-release":                    file("NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 24.04 LTS\"\n"),
		"proc/sys/kernel/osrelease":         file("6.8.0-45-generic\n"),
	}
	// The extended size (offset 0x1C) of the 0x7FFF records: 64 GB.
	for _, n := range []string{"sys/firmware/dmi/entries/17-0/raw", "sys/firmware/dmi/entries/17-2/raw"} {
		binary.LittleEndian.PutUint32(fsys[n].Data[0x1C:], 65536)
	}
	assert.Equal(t, map[string]string{
		"host_processor_model_name": "AMD EPYC 9654 96-Core Processor", "host_processors_per_node": "2",
		"host_processor_core_count": "96", "host_processor_frequency": "3.71 GHz (maximum)",
		"host_processor_caches": "L1d 32K, L3 32768K", "host_memory_capacity": "1622.0 GB",
		"host_memory_configuration": "2x 64 GB DDR5 4800 MT/s", "host_storage_capacity": "3.8 TB",
		"host_storage_type": "NVMe SSD, HDD", "host_networking": "1x 100 Gbit/s Ethernet, 1x 400 Gbit/s InfiniBand",
		"host_network_card_count": "2", "operating_system": "Ubuntu 24.04 LTS, Linux 6.8.0-45-generic",
	}, DetectSystem(fsys))
}

func TestDetectSystemEmpty(t *testing.T) {
	t.Parallel()
	assert.Empty(t, DetectSystem(fstest.MapFS{}))
}

// TestDetectThisMachine runs detection on the machine the test runs on:
// whatever it finds, it finds no field empty.
func TestDetectThisMachine(t *testing.T) {
	t.Parallel()
	fsys := os.DirFS("/")
	for k, v := range DetectSystem(fsys) {
		assert.NotEmpty(t, v, k)
	}
}

func TestDescribeSystem(t *testing.T) {
	t.Parallel()
	r := benchmarks.MustRound("v6.1")
	in := SystemInputs{Round: r, Division: "closed", Submitter: "acme", System: "box", Category: benchmarks.Edge,
		Detected:  map[string]string{"host_processor_model_name": "cpu", "host_processor_core_count": "8", "host_processors_per_node": "1"},
		Framework: "mlperf-host", Software: "go"}
	d, missing := DescribeSystem(in)
	assert.Len(t, d, len(r.SystemFields), "every required field, and no other")
	assert.Equal(t, "0", d["accelerators_per_node"], "a string: the checker reads the number 0 as empty")
	assert.Equal(t, "N/A", d["accelerator_model_name"])
	assert.Equal(t, 8, d["host_processor_core_count"])
	assert.Equal(t, 1, d["number_of_nodes"])
	assert.Equal(t, []string{"cooling", "host_memory_capacity", "host_memory_configuration", "host_network_card_count",
		"host_networking", "host_networking_topology", "host_storage_capacity", "host_storage_type", "operating_system"}, missing)

	in.Accelerators = []Accelerator{{"H100", 80e9}, {"H100", 80e9}}
	in.Given = map[string]string{"cooling": "liquid", "accelerator_host_interconnect": "PCIe 5.0 x16", "hw_notes": "n"}
	d, missing = DescribeSystem(in)
	assert.Equal(t, 2, d["accelerators_per_node"])
	assert.Equal(t, "H100", d["accelerator_model_name"])
	assert.Equal(t, "80 GB", d["accelerator_memory_capacity"])
	assert.Equal(t, "liquid", d["cooling"])
	assert.Contains(t, missing, "accelerator_interconnect")
	assert.NotContains(t, missing, "accelerator_host_interconnect")
	problems := CheckSystem(d, r, "closed", "acme")
	assert.Len(t, problems, 1, "only the missing fields: %v", problems)
}
