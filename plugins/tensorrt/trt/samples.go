package trt

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/mlperf-host/mlperf-host/plugins/internal/accel"
	"github.com/mlperf-host/mlperf-host/plugins/internal/native"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// arena is the samples of one LoadSamples call, copied once, untimed, into
// memory a lane can DMA from: pinned host memory (the default, as the
// rules have the sample library in host memory), or device memory on
// every device (start_from_device). Inside an arena the samples are laid
// out tensor by tensor: input k of the sample at position p is at
// base + n·offset(k) + p·rowBytes(k), so that consecutive samples are one
// contiguous range per input. For an engine whose inputs vary beyond the
// batch the samples lie back to back instead, each as the host sent it,
// sample p from starts[p]. It is freed when its last sample is unloaded.
type arena struct {
	n      int
	starts []int
	// host holds the pinned copies, one per NUMA node in use (one without
	// numa_config), and hostOf[s] the one the device in slot s reads;
	// dev[s] is the copy on the device in slot s. Either host or dev is
	// set.
	host   []unsafe.Pointer
	hostOf []int
	dev    []uintptr
	refs   int
}

// onDevice reports whether the arena lives in device memory.
func (a *arena) onDevice() bool { return a.dev != nil }

// base returns the arena's address as the device in slot sees it: pinned
// host memory is addressable from every device (unified addressing).
func (a *arena) base(slot int) uintptr {
	if a.dev != nil {
		return a.dev[slot]
	}
	return uintptr(a.host[a.hostOf[slot]])
}

// input returns the address of input t of the sample at position pos.
func (a *arena) input(slot int, t *tensorInfo, pos int) uintptr {
	return a.base(slot) + uintptr(a.n*t.offset+pos*t.sampleBytes)
}

// packed returns the address of byte off of the sample at position pos of
// a packed arena.
func (a *arena) packed(slot, pos, off int) uintptr {
	return a.base(slot) + uintptr(a.starts[pos]+off)
}

// placed is where a loaded sample lives.
type placed struct {
	a   *arena
	pos int
}

// sampleStore holds the samples LoadSamples received: where each one was
// copied, and its bytes as the host sent them (for a sample the arena
// could not take, and to fail one of the wrong size).
//
// The host never calls LoadSamples or UnloadSamples concurrently with
// Infer (sdk.Backend), so lanes read the maps without a lock.
type sampleStore struct {
	hostData map[uint64][]byte
	loaded   map[uint64]placed
}

func newSampleStore() *sampleStore {
	return &sampleStore{hostData: map[uint64][]byte{}, loaded: map[uint64]placed{}}
}

// place returns where sample index was copied.
func (s *sampleStore) place(index uint64) (placed, bool) {
	p, ok := s.loaded[index]
	return p, ok
}

// host returns the bytes to stage for a sample that is in no arena: the
// loaded bytes, or what the host sent with the query.
func (s *sampleStore) host(sm sdk.Sample) []byte {
	if d, ok := s.hostData[sm.Index]; ok {
		return d
	}
	return sm.Data
}

// loadSamples records samples and copies them into one arena, in pinned
// host memory or (start_from_device) on every device. It runs with every
// lane held, so no batch is in flight.
func (m *model) loadSamples(ctx context.Context, samples []sdk.LoadedSample) error {
	for _, s := range samples {
		if !m.layout.varShape && len(s.Data) != m.layout.inBytes {
			return fmt.Errorf("tensorrt: load sample %d: %d bytes, but the engine's inputs take %d per sample",
				s.Index, len(s.Data), m.layout.inBytes)
		}
		if _, dup := m.samples.hostData[s.Index]; dup {
			return fmt.Errorf("tensorrt: load sample %d: already loaded", s.Index)
		}
	}
	if len(samples) == 0 {
		return nil
	}
	a := &arena{n: len(samples)}
	total := uintptr(len(samples) * m.layout.inBytes)
	if m.layout.varShape {
		total = 0
		for _, s := range samples {
			a.starts = append(a.starts, int(total))
			total += uintptr(len(s.Data))
		}
	}
	onDevice, err := m.placeOnDevice(uint64(total))
	if err != nil {
		return err
	}
	if onDevice {
		err = m.copyToDevices(ctx, a, samples, total)
	} else {
		err = m.copyToPinned(ctx, a, samples, total)
	}
	if err != nil {
		return err
	}
	for i, s := range samples {
		m.samples.loaded[s.Index] = placed{a: a, pos: i}
		m.samples.hostData[s.Index] = s.Data
	}
	a.refs = len(samples)
	return nil
}

// placeOnDevice decides whether total sample bytes go to device memory.
func (m *model) placeOnDevice(total uint64) (bool, error) {
	if m.cfg.Residency == ResidencyHost {
		return false, nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, d := range m.devices {
		if err := m.cuda.SetDevice(d.ordinal); err != nil {
			return false, err
		}
		free, _, err := m.cuda.MemInfo()
		if err != nil {
			return false, err
		}
		budget := uint64(float64(free) * m.cfg.DeviceMemoryFraction)
		if total > budget {
			if m.cfg.Residency == ResidencyDevice {
				return false, fmt.Errorf("tensorrt: %d sample bytes do not fit in device %d's budget of %d bytes "+
					"(%.0f%% of %d free); use start_from_device=auto or false", total, d.ordinal, budget,
					m.cfg.DeviceMemoryFraction*100, free)
			}
			return false, nil
		}
	}
	return true, nil
}

// arrange writes samples into dst tensor by tensor, or back to back for
// an engine whose inputs vary (see arena).
func (m *model) arrange(dst []byte, samples []sdk.LoadedSample) {
	if m.layout.varShape {
		off := 0
		for _, s := range samples {
			off += copy(dst[off:], s.Data)
		}
		return
	}
	n := len(samples)
	for k := range m.layout.inputs {
		t := &m.layout.inputs[k]
		region := dst[n*t.offset : n*(t.offset+t.sampleBytes)]
		for p, s := range samples {
			copy(region[p*t.sampleBytes:(p+1)*t.sampleBytes], s.Data[t.offset:t.offset+t.sampleBytes])
		}
	}
}

// copyToPinned allocates the arena in pinned host memory and arranges the
// samples in it: one copy per NUMA node of the devices in use, each
// allocated and written from a thread on the node's CPUs, so that its
// pages are the node's; one copy for devices in no node.
func (m *model) copyToPinned(ctx context.Context, a *arena, samples []sdk.LoadedSample, total uintptr) error {
	a.hostOf = make([]int, len(m.devices))
	replica := map[int]int{} // NUMA node (-1: none) → index in a.host
	for slot, d := range m.devices {
		if i, ok := replica[d.node]; ok {
			a.hostOf[slot] = i
			continue
		}
		if err := ctx.Err(); err != nil {
			return errors.Join(fmt.Errorf("tensorrt: load samples: %w", err), m.freeArena(a))
		}
		p, err := m.pinnedCopy(d.cpus, samples, total)
		if err != nil {
			return errors.Join(err, m.freeArena(a))
		}
		replica[d.node] = len(a.host)
		a.hostOf[slot] = len(a.host)
		a.host = append(a.host, p)
	}
	return nil
}

// pinnedCopy allocates pinned memory and arranges the samples in it, on
// cpus when they are set.
func (m *model) pinnedCopy(cpus []int, samples []sdk.LoadedSample, total uintptr) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	ran := false
	err := accel.OnCPUs(cpus, func() (err error) {
		ran = true
		if p, err = m.cuda.MallocHost(total); err != nil {
			return fmt.Errorf("tensorrt: samples in pinned host memory: %w", err)
		}
		m.arrange(native.Bytes(p, int(total)), samples)
		return nil
	})
	if err != nil && !ran {
		return nil, fmt.Errorf("tensorrt: samples for CPUs %v: %w", cpus, err)
	}
	return p, err
}

// copyToDevices arranges the samples in Go memory, then allocates the
// arena on every device and copies them in.
func (m *model) copyToDevices(ctx context.Context, a *arena, samples []sdk.LoadedSample, total uintptr) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	staged := make([]byte, total)
	m.arrange(staged, samples)
	a.dev = make([]uintptr, len(m.devices))
	for slot, d := range m.devices {
		if err := ctx.Err(); err != nil {
			return errors.Join(fmt.Errorf("tensorrt: load samples: %w", err), m.freeArena(a))
		}
		if err := m.fillArena(a, slot, d, staged); err != nil {
			return errors.Join(err, m.freeArena(a))
		}
	}
	return nil
}

// fillArena allocates the arena on one device and copies the samples in.
func (m *model) fillArena(a *arena, slot int, d *device, staged []byte) error {
	if err := m.cuda.SetDevice(d.ordinal); err != nil {
		return err
	}
	p, err := m.cuda.Malloc(uintptr(len(staged)))
	if err != nil {
		return fmt.Errorf("tensorrt: samples on device %d: %w", d.ordinal, err)
	}
	a.dev[slot] = p
	if err := m.cuda.CopyToDevice(p, staged); err != nil {
		return fmt.Errorf("tensorrt: copy samples to device %d: %w", d.ordinal, err)
	}
	return nil
}

// busy reports whether queued work may still read an arena: a failed
// device's streams that have not drained (a batch that timed out may have
// copies queued), or a wedged device.
func (m *model) busy(d *device) bool {
	return d.wedged || (d.Failed() && !d.idle(m.cuda))
}

// freeArena releases an arena's memory; the caller's thread is locked.
// Memory that queued work may still read (see busy) is freed at release,
// after the streams drain: device memory of that device, or pinned
// memory when any device is busy.
func (m *model) freeArena(a *arena) error {
	var errs []error
	if a.host != nil {
		busy := false
		for _, d := range m.devices {
			busy = busy || m.busy(d)
		}
		for _, p := range a.host {
			if busy {
				m.deferredHost = append(m.deferredHost, p)
			} else {
				errs = append(errs, m.cuda.FreeHost(p))
			}
		}
		a.host = nil
	}
	for slot, p := range a.dev {
		if p == 0 {
			continue
		}
		d := m.devices[slot]
		if err := m.cuda.SetDevice(d.ordinal); err != nil {
			errs = append(errs, err)
			continue
		}
		a.dev[slot] = 0
		if m.busy(d) {
			d.deferred = append(d.deferred, p)
			continue
		}
		errs = append(errs, m.cuda.Free(p))
	}
	return errors.Join(errs...)
}

// unloadSamples forgets samples and frees arenas no longer used. Like
// loadSamples it runs with every lane held.
func (m *model) unloadSamples(indices []uint64) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var errs []error
	for _, i := range indices {
		delete(m.samples.hostData, i)
		p, ok := m.samples.loaded[i]
		if !ok {
			continue
		}
		delete(m.samples.loaded, i)
		if p.a.refs--; p.a.refs == 0 {
			errs = append(errs, m.freeArena(p.a))
		}
	}
	return errors.Join(errs...)
}

// freeAllSamples releases every arena, at Close.
func (m *model) freeAllSamples() error {
	seen := map[*arena]bool{}
	var errs []error
	for _, p := range m.samples.loaded {
		if !seen[p.a] {
			seen[p.a] = true
			errs = append(errs, m.freeArena(p.a))
		}
	}
	m.samples = newSampleStore()
	return errors.Join(errs...)
}
