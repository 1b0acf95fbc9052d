package trt

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// arena is one LoadSamples call's samples, copied to every device: base[s]
// is the allocation on the device in slot s. It is freed when its last
// sample is unloaded.
type arena struct {
	base []uintptr
	refs int
}

// resident is where a loaded sample lives in device memory.
type resident struct {
	a   *arena
	off uintptr
}

// sampleStore holds the samples LoadSamples received: their host bytes,
// and their device copies when they fit (start-from-device).
//
// The host never calls LoadSamples or UnloadSamples concurrently with
// Infer (sdk.Backend), so lanes read the maps without a lock.
type sampleStore struct {
	hostData map[uint64][]byte
	onDevice map[uint64]resident
}

func newSampleStore() *sampleStore {
	return &sampleStore{hostData: map[uint64][]byte{}, onDevice: map[uint64]resident{}}
}

// device returns sample index's device pointer on the device in slot.
func (s *sampleStore) device(index uint64, slot int) (uintptr, bool) {
	r, ok := s.onDevice[index]
	if !ok {
		return 0, false
	}
	return r.a.base[slot] + r.off, true
}

// host returns the bytes to stage for a sample: the loaded copy, or what
// the host sent with the query.
func (s *sampleStore) host(sm sdk.Sample) []byte {
	if d, ok := s.hostData[sm.Index]; ok {
		return d
	}
	return sm.Data
}

// load records samples and, depending on m's residency, copies them to
// every device. It runs with every lane held, so no batch is in flight.
func (m *model) loadSamples(ctx context.Context, samples []sdk.LoadedSample) error {
	total := 0
	for _, s := range samples {
		if len(s.Data) != m.layout.inBytes {
			return fmt.Errorf("tensorrt: load sample %d: %d bytes, but the engine's inputs take %d per sample",
				s.Index, len(s.Data), m.layout.inBytes)
		}
		if _, dup := m.samples.hostData[s.Index]; dup {
			return fmt.Errorf("tensorrt: load sample %d: already loaded", s.Index)
		}
		total += len(s.Data)
	}
	onDevice, err := m.placeOnDevice(uint64(total))
	if err != nil {
		return err
	}
	if onDevice && total > 0 {
		a, err := m.copyToDevices(ctx, samples, uintptr(total))
		if err != nil {
			return err
		}
		off := uintptr(0)
		for _, s := range samples {
			m.samples.onDevice[s.Index] = resident{a: a, off: off}
			off += uintptr(len(s.Data))
		}
		a.refs = len(samples)
	}
	for _, s := range samples {
		m.samples.hostData[s.Index] = s.Data
	}
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
					"(%.0f%% of %d free); use samples_on_device=auto or host", total, d.ordinal, budget,
					m.cfg.DeviceMemoryFraction*100, free)
			}
			return false, nil
		}
	}
	return true, nil
}

// copyToDevices allocates one arena per device and copies the samples in.
func (m *model) copyToDevices(ctx context.Context, samples []sdk.LoadedSample, total uintptr) (*arena, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := &arena{base: make([]uintptr, len(m.devices))}
	for slot, d := range m.devices {
		if err := m.fillArena(ctx, a, slot, d, samples, total); err != nil {
			return nil, errors.Join(err, m.freeArena(a))
		}
	}
	return a, nil
}

// fillArena allocates the arena on one device and copies the samples in.
func (m *model) fillArena(ctx context.Context, a *arena, slot int, d *device, samples []sdk.LoadedSample, total uintptr) error {
	if err := m.cuda.SetDevice(d.ordinal); err != nil {
		return err
	}
	p, err := m.cuda.Malloc(total)
	if err != nil {
		return fmt.Errorf("tensorrt: samples on device %d: %w", d.ordinal, err)
	}
	a.base[slot] = p
	off := uintptr(0)
	for _, s := range samples {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tensorrt: load samples: %w", err)
		}
		if err := m.cuda.CopyToDevice(p+off, s.Data); err != nil {
			return fmt.Errorf("tensorrt: copy sample %d to device %d: %w", s.Index, d.ordinal, err)
		}
		off += uintptr(len(s.Data))
	}
	return nil
}

// freeArena releases an arena's device memory; the caller's thread is
// locked. On a failed device whose streams still hold work (a batch that
// timed out may have gathers queued that read the arena) the free is
// deferred to release, after the streams drain.
func (m *model) freeArena(a *arena) error {
	var errs []error
	for slot, p := range a.base {
		if p == 0 {
			continue
		}
		d := m.devices[slot]
		if err := m.cuda.SetDevice(d.ordinal); err != nil {
			errs = append(errs, err)
			continue
		}
		a.base[slot] = 0
		if d.wedged || (d.Failed() && !d.idle(m.cuda)) {
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
		r, ok := m.samples.onDevice[i]
		if !ok {
			continue
		}
		delete(m.samples.onDevice, i)
		if r.a.refs--; r.a.refs == 0 {
			errs = append(errs, m.freeArena(r.a))
		}
	}
	return errors.Join(errs...)
}

// freeAllSamples releases every arena, at Close.
func (m *model) freeAllSamples() error {
	seen := map[*arena]bool{}
	var errs []error
	for _, r := range m.samples.onDevice {
		if !seen[r.a] {
			seen[r.a] = true
			errs = append(errs, m.freeArena(r.a))
		}
	}
	m.samples = newSampleStore()
	return errors.Join(errs...)
}
