package wasmsimd

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// The fuzz memory: 16 pages the kernel module imports as env.memory, the
// descriptor at fuzzDesc, data after it.
const (
	fuzzPages   = 16
	fuzzMemSize = fuzzPages << 16
	fuzzDesc    = 0x1000
	fuzzData    = 0x2000
	fuzzScratch = 0x40000 // gemm's scratch (16-byte aligned) up to the end
	// fuzzTimeout stops a call that loops long over broadcast (zero)
	// strides: short, so that the fuzzer spends its time on other inputs.
	fuzzTimeout = 250 * time.Millisecond
)

// fuzzKernels are the exported kernels and their descriptor sizes (the
// C structs' _Static_asserts); smallm also takes a scratch pointer.
var fuzzKernels = []struct {
	name string
	size int
}{{"gemm", 160}, {"depthwise", 96}, {"maxpool", 64}, {"smallm", 64}, {"winograd", 84}}

// kernelInstance is the kernel module instantiated alone over a memory
// of its own, in a runtime whose calls a deadline stops.
type kernelInstance struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	env, mod api.Module
	mem      api.Memory
	fns      map[string]api.Function
}

// fuzzMemoryModule exports a memory of fuzzPages pages, for the kernel
// module's env.memory import.
var fuzzMemoryModule = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x05, 0x03, 0x01, 0x00, fuzzPages, // memory: min fuzzPages pages
	0x07, 0x0a, 0x01, 0x06, 'm', 'e', 'm', 'o', 'r', 'y', 0x02, 0x00} // export "memory"

var (
	fuzzMu      sync.Mutex
	fuzzCurrent *kernelInstance
)

func newKernelInstance(ctx context.Context) (*kernelInstance, error) {
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	compiled, err := rt.CompileModule(ctx, Module())
	if err != nil {
		return nil, errors.Join(err, rt.Close(ctx))
	}
	k := &kernelInstance{rt: rt, compiled: compiled}
	if err := k.instantiate(ctx); err != nil {
		return nil, errors.Join(err, rt.Close(ctx))
	}
	return k, nil
}

// instantiate makes a fresh memory and kernel instance (after a deadline
// closed the last one), without compiling the module again.
func (k *kernelInstance) instantiate(ctx context.Context) error {
	for _, m := range []api.Module{k.mod, k.env} {
		if m != nil {
			_ = m.Close(ctx)
		}
	}
	env, err := k.rt.InstantiateWithConfig(ctx, fuzzMemoryModule, wazero.NewModuleConfig().WithName("env"))
	if err != nil {
		return err
	}
	mod, err := k.rt.InstantiateModule(ctx, k.compiled, wazero.NewModuleConfig().WithName(ImportModule))
	if err != nil {
		return err
	}
	k.env, k.mod, k.mem, k.fns = env, mod, env.Memory(), map[string]api.Function{}
	for _, kn := range fuzzKernels {
		if k.fns[kn.name] = mod.ExportedFunction(kn.name); k.fns[kn.name] == nil {
			return errors.New("the module does not export " + kn.name)
		}
	}
	return nil
}

// le is the little-endian bytes of a descriptor's fields.
func le(fields ...any) []byte {
	var b []byte
	for _, f := range fields {
		switch v := f.(type) {
		case int:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		case float32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		default:
			panic("le: int or float32")
		}
	}
	return b
}

// fuzzSeeds are valid calls of each kernel over the fuzz memory's data.
func fuzzSeeds() [][]byte {
	const a, b, c, ptrs = fuzzData, fuzzData + 0x1000, fuzzData + 0x2000, fuzzData + 0x3000
	gemmMatrix := le(4, 4, 4, 1, ptrs, 1, 0, b, 4, 1, 0, // m n k batch a groups src b b_rs b_cs b_batch
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // conv geometry
		c, 4, 1, 0, float32(1), float32(0), 0, 0, 0, 0, 0, 0, float32(0), float32(0), // c ... hi
		fuzzScratch, (fuzzMemSize-fuzzScratch)/4, 0) // scratch scratch_len a_layout
	gemmConv := le(4, 16, 18, 1, ptrs, 1, 1, b, 0, 0, 2*16, // conv over a 2×4×4 image, 3×3, pad 1
		2, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 4,
		c, 16, 1, 0, float32(1), float32(0), a, 1, 0, 0, 0, 1, float32(0), float32(0),
		fuzzScratch, (fuzzMemSize-fuzzScratch)/4, 0)
	depthwise := le(1, 2, 8, 8, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, // n c h w oh ow kh kw sh sw dh dw pad_t pad_l
		a, c, b, 0, 0, 2, float32(0), float32(6), fuzzScratch, 4096) // x y wts bias res act lo hi scratch len
	maxpool := le(1, 2, 8, 8, 4, 4, 3, 3, 2, 2, 1, 1, a, c, fuzzScratch, 4096) // ... pad_t pad_l x y scratch len
	smallm := le(2, 8, 4, a, 4, b, 4, 1, c, 8, float32(1), float32(0), 0, 1, float32(0), float32(0))
	winograd := le(1, 2, 4, 4, 4, 4, 4, 1, 1, 2, 12, // n cin h w cout oh ow pad_t pad_l m nt: F(2×2) over a 2×4×4 image
		a, b, c, a, 0, 1, float32(0), float32(0), // x u y bias res act lo hi
		fuzzScratch, (fuzzMemSize-fuzzScratch)/4) // scratch scratch_len
	return [][]byte{gemmMatrix, gemmConv, depthwise, maxpool, smallm, winograd}
}

// seedKernel is the index in fuzzKernels of fuzzSeeds()[i]: gemm twice,
// then the others in order.
func seedKernel(i int) int { return max(i-1, 0) }

// fuzzFill is the fuzz memory's contents before each call: 0.25 everywhere.
var fuzzFill = sync.OnceValue(func() []byte {
	b := make([]byte, 0, fuzzMemSize)
	for len(b) < fuzzMemSize {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(0.25))
	}
	return b
})

// FuzzKernels calls each SIMD kernel with a fuzzed descriptor (and
// descriptor address, and smallm's scratch pointer) over a memory of its
// own: the kernel checks every range it is given, so it returns one of
// its status codes and never traps. A call that runs past its deadline (a
// huge problem over broadcast strides, as testdata's smallm-long) is
// stopped, as the host's loop guard stops a guest; that is not a failure.
func FuzzKernels(f *testing.F) {
	for i, seed := range fuzzSeeds() {
		f.Add(uint8(seedKernel(i)), uint32(fuzzDesc), seed, uint32(fuzzScratch))
	}
	f.Add(uint8(0), uint32(fuzzMemSize-8), []byte{}, uint32(0))
	f.Add(uint8(3), uint32(fuzzDesc), fuzzSeeds()[4], uint32(fuzzMemSize-4))
	f.Fuzz(func(t *testing.T, which uint8, at uint32, desc []byte, scratch uint32) {
		fuzzMu.Lock()
		defer fuzzMu.Unlock()
		if fuzzCurrent == nil {
			k, err := newKernelInstance(context.Background())
			require.NoError(t, err)
			fuzzCurrent = k
		}
		k := fuzzCurrent
		kn := fuzzKernels[int(which)%len(fuzzKernels)]
		// A fresh memory: data 0.25 everywhere, the descriptor (cut or
		// zero-padded to its size) at fuzzDesc.
		require.True(t, k.mem.Write(0, fuzzFill()))
		d := make([]byte, kn.size)
		copy(d, desc)
		require.True(t, k.mem.Write(fuzzDesc, d))
		ptrs := le(fuzzData, fuzzData) // groups ≤ 2 find A pointers
		require.True(t, k.mem.Write(fuzzData+0x3000, ptrs))

		ctx, cancel := context.WithTimeout(context.Background(), fuzzTimeout)
		defer cancel()
		args := []uint64{uint64(at)}
		if kn.name == "smallm" {
			args = append(args, uint64(scratch))
		}
		res, err := k.fns[kn.name].Call(ctx, args...)
		var exit *sys.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded {
			require.NoError(t, k.instantiate(context.Background()), "closed by its deadline: instantiate again")
			return
		}
		require.NoError(t, err, "%s(%#x) trapped on descriptor %x", kn.name, at, d)
		assert.LessOrEqual(t, uint32(res[0]), uint32(2), "%s: status %d", kn.name, int32(res[0]))
	})
}

// TestFuzzSeedsValid: the fuzz's seeds are valid calls (status 0), so the
// fuzzer starts from descriptors that reach the kernels' loops.
func TestFuzzSeedsValid(t *testing.T) {
	t.Parallel()
	k, err := newKernelInstance(t.Context())
	require.NoError(t, err)
	defer k.rt.Close(t.Context())
	require.True(t, k.mem.Write(fuzzData+0x3000, le(fuzzData, fuzzData)))
	for i, seed := range fuzzSeeds() {
		kn := fuzzKernels[seedKernel(i)]
		require.Len(t, seed, kn.size, kn.name)
		require.True(t, k.mem.Write(fuzzDesc, seed))
		args := []uint64{fuzzDesc}
		if kn.name == "smallm" {
			args = append(args, fuzzScratch)
		}
		res, err := k.fns[kn.name].Call(t.Context(), args...)
		require.NoError(t, err, kn.name)
		assert.Equal(t, uint64(0), res[0], "seed %d (%s)", i, kn.name)
	}
}
