package submission

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// DetectSystem reads what a Linux machine tells of itself from /proc,
// /sys and /etc (fsys rooted at "/", e.g. os.DirFS("/")): processor model,
// count, cores, frequency and caches, memory capacity and configuration
// (SMBIOS type 17 records, readable by root), storage, network cards and
// operating system. It returns the system description fields it could
// fill, by their official names; a field it cannot tell is absent.
func DetectSystem(fsys fs.FS) map[string]string {
	out := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	cpu := readCPUInfo(fsys)
	set("host_processor_model_name", cpu.model)
	if cpu.sockets > 0 {
		set("host_processors_per_node", strconv.Itoa(cpu.sockets))
	}
	if cpu.cores > 0 {
		set("host_processor_core_count", strconv.Itoa(cpu.cores))
	}
	set("host_processor_frequency", cpuFrequency(fsys, cpu.mhz))
	set("host_processor_caches", cpuCaches(fsys))
	set("host_memory_capacity", memCapacity(fsys))
	set("host_memory_configuration", memConfiguration(fsys))
	capacity, kind := storage(fsys)
	set("host_storage_capacity", capacity)
	set("host_storage_type", kind)
	nics, count := networking(fsys)
	set("host_networking", nics)
	if count > 0 {
		set("host_network_card_count", strconv.Itoa(count))
	}
	set("operating_system", operatingSystem(fsys))
	return out
}

func readText(fsys fs.FS, name string) string {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

type cpuInfo struct {
	model          string
	sockets, cores int
	mhz            float64
}

// readCPUInfo reads /proc/cpuinfo: the model name, the distinct physical
// ids (processors) and the cores of one ("cpu cores", else the logical
// CPUs per processor).
func readCPUInfo(fsys fs.FS) cpuInfo {
	var c cpuInfo
	f, err := fsys.Open("proc/cpuinfo")
	if err != nil {
		return c
	}
	defer f.Close()
	ids := map[string]bool{}
	logical := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			logical++
		case "model name":
			if c.model == "" {
				c.model = v
			}
		case "physical id":
			ids[v] = true
		case "cpu cores":
			if n, err := strconv.Atoi(v); err == nil && c.cores == 0 {
				c.cores = n
			}
		case "cpu MHz":
			if f, err := strconv.ParseFloat(v, 64); err == nil && c.mhz == 0 {
				c.mhz = f
			}
		}
	}
	c.sockets = max(len(ids), 1)
	if logical == 0 {
		c.sockets = 0
	} else if c.cores == 0 {
		c.cores = logical / c.sockets
	}
	return c
}

// cpuFrequency is the largest frequency cpufreq reports, else
// /proc/cpuinfo's current one.
func cpuFrequency(fsys fs.FS, mhz float64) string {
	if khz, err := strconv.ParseFloat(readText(fsys, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"), 64); err == nil && khz > 0 {
		return fmt.Sprintf("%.2f GHz (maximum)", khz/1e6)
	}
	if mhz > 0 {
		return fmt.Sprintf("%.2f GHz", mhz/1000)
	}
	return ""
}

// cpuCaches lists cpu0's caches: "L1d 48K, L1i 32K, L2 2048K, L3 307200K"
// as /sys writes their sizes.
func cpuCaches(fsys fs.FS) string {
	const dir = "sys/devices/system/cpu/cpu0/cache"
	es, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return ""
	}
	var parts []string
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		p := path.Join(dir, e.Name())
		level, typ, size := readText(fsys, p+"/level"), readText(fsys, p+"/type"), readText(fsys, p+"/size")
		if level == "" || size == "" {
			continue
		}
		name := "L" + level
		switch typ {
		case "Data":
			name += "d"
		case "Instruction":
			name += "i"
		}
		parts = append(parts, name+" "+size)
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// memCapacity is MemTotal, in GB.
func memCapacity(fsys fs.FS) string {
	for _, line := range strings.Split(readText(fsys, "proc/meminfo"), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err == nil {
				return fmt.Sprintf("%.1f GB", kb*1024/1e9)
			}
		}
	}
	return ""
}

// memTypes names SMBIOS memory types (type 17, offset 0x12).
var memTypes = map[byte]string{
	0x12: "DDR", 0x13: "DDR2", 0x18: "DDR3", 0x1A: "DDR4", 0x1B: "LPDDR", 0x1C: "LPDDR2", 0x1D: "LPDDR3",
	0x1E: "LPDDR4", 0x20: "HBM", 0x21: "HBM2", 0x22: "DDR5", 0x23: "LPDDR5", 0x24: "HBM3",
}

// memConfiguration reads the SMBIOS memory device records
// (/sys/firmware/dmi/entries/17-*/raw) and counts the installed modules
// by size, type and speed: "16x 32 GB DDR5 4800 MT/s".
func memConfiguration(fsys fs.FS) string {
	const dir = "sys/firmware/dmi/entries"
	es, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return ""
	}
	var t tally
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), "17-") {
			continue
		}
		raw, err := fs.ReadFile(fsys, path.Join(dir, e.Name(), "raw"))
		if err != nil {
			continue
		}
		if desc := memDevice(raw); desc != "" {
			t.add(desc)
		}
	}
	return t.String()
}

// tally counts descriptions in the order they first come.
type tally struct {
	count map[string]int
	order []string
	n     int
}

func (t *tally) add(desc string) {
	if t.count == nil {
		t.count = map[string]int{}
	}
	if t.count[desc] == 0 {
		t.order = append(t.order, desc)
	}
	t.count[desc]++
	t.n++
}

// String reads "2x A, 1x B".
func (t *tally) String() string {
	var parts []string
	for _, d := range t.order {
		parts = append(parts, fmt.Sprintf("%dx %s", t.count[d], d))
	}
	return strings.Join(parts, ", ")
}

// memDevice describes one SMBIOS type 17 record, "" for an empty slot.
func memDevice(raw []byte) string {
	if len(raw) < 0x17 || raw[0] != 17 {
		return ""
	}
	size := binary.LittleEndian.Uint16(raw[0x0C:])
	var mb uint64
	switch {
	case size == 0 || size == 0xFFFF:
		return ""
	case size == 0x7FFF && len(raw) >= 0x20:
		mb = uint64(binary.LittleEndian.Uint32(raw[0x1C:]) & 0x7FFFFFFF)
	case size&0x8000 != 0:
		mb = uint64(size&0x7FFF) / 1024
	default:
		mb = uint64(size)
	}
	desc := fmt.Sprintf("%d GB", mb/1024)
	if mb < 1024 {
		desc = fmt.Sprintf("%d MB", mb)
	}
	if t, ok := memTypes[raw[0x12]]; ok {
		desc += " " + t
	}
	speed := uint32(binary.LittleEndian.Uint16(raw[0x15:]))
	if len(raw) >= 0x22 {
		if conf := binary.LittleEndian.Uint16(raw[0x20:]); conf != 0 && conf != 0xFFFF {
			speed = uint32(conf)
		}
	}
	if speed != 0 && speed != 0xFFFF {
		desc += fmt.Sprintf(" %d MT/s", speed)
	}
	return desc
}

// storage sums the block devices that are disks (not loop, RAM or
// device-mapper devices) and names their kinds.
func storage(fsys fs.FS) (capacity, kind string) {
	es, err := fs.ReadDir(fsys, "sys/block")
	if err != nil {
		return "", ""
	}
	var bytes float64
	var kinds []string
	for _, e := range es {
		n := e.Name()
		if strings.HasPrefix(n, "loop") || strings.HasPrefix(n, "ram") || strings.HasPrefix(n, "zram") ||
			strings.HasPrefix(n, "dm-") || strings.HasPrefix(n, "sr") || strings.HasPrefix(n, "md") {
			continue
		}
		sectors, err := strconv.ParseFloat(readText(fsys, "sys/block/"+n+"/size"), 64)
		if err != nil || sectors == 0 {
			continue
		}
		bytes += sectors * 512
		var k string
		switch {
		case strings.HasPrefix(n, "nvme"):
			k = "NVMe SSD"
		case strings.HasPrefix(n, "vd"):
			k = "virtio disk"
		case readText(fsys, "sys/block/"+n+"/queue/rotational") == "0":
			k = "SSD"
		default:
			k = "HDD"
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	if bytes == 0 {
		return "", ""
	}
	if bytes >= 1e12 {
		capacity = fmt.Sprintf("%.1f TB", bytes/1e12)
	} else {
		capacity = fmt.Sprintf("%.0f GB", bytes/1e9)
	}
	return capacity, strings.Join(kinds, ", ")
}

// networking describes the network interfaces backed by a device (not
// loopback, bridges or other virtual ones): "1x 25 Gbit/s Ethernet
// (mlx5_core)", and their number.
func networking(fsys fs.FS) (string, int) {
	es, err := fs.ReadDir(fsys, "sys/class/net")
	if err != nil {
		return "", 0
	}
	var t tally
	for _, e := range es {
		base := "sys/class/net/" + e.Name()
		if _, err := fs.Stat(fsys, base+"/device"); err != nil {
			continue
		}
		kind := "Ethernet"
		if readText(fsys, base+"/type") == "32" {
			kind = "InfiniBand"
		}
		if mbit, err := strconv.Atoi(readText(fsys, base+"/speed")); err == nil && mbit > 0 {
			kind = fmt.Sprintf("%g Gbit/s %s", float64(mbit)/1000, kind)
		}
		if link, err := fs.ReadLink(fsys, base+"/device/driver"); err == nil {
			kind += " (" + path.Base(link) + ")"
		}
		t.add(kind)
	}
	return t.String(), t.n
}

// operatingSystem is os-release's PRETTY_NAME and the kernel release.
func operatingSystem(fsys fs.FS) string {
	var name string
	for _, line := range strings.Split(readText(fsys, "etc/os-release"), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			name = strings.Trim(v, `"`)
		}
	}
	if k := readText(fsys, "proc/sys/kernel/osrelease"); k != "" {
		if name != "" {
			name += ", "
		}
		name += "Linux " + k
	}
	return name
}
