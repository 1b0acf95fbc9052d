package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/tetratelabs/wazero"
	"golang.org/x/sys/unix"
)

// gemmShapes are the M×N×K problems of the kernels' GEMM benchmark
// (plugins/onnx/internal/kernels): a ResNet-50 3×3 convolution as a GEMM,
// a square one, a late layer.
var gemmShapes = [][3]int{{64, 3136, 576}, {256, 256, 256}, {1024, 49, 4608}}

// memoryModule is a module that only exports a memory of pages pages,
// which the kernel module imports as env.memory.
func memoryModule(pages uint32) []byte {
	b := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	limits := binary.AppendUvarint([]byte{0x01, 0x00}, uint64(pages)) // vec of 1; flags 0; min
	b = append(append(b, 0x05, byte(len(limits))), limits...)
	return append(b, 0x07, 0x0a, 0x01, 0x06, 'm', 'e', 'm', 'o', 'r', 'y', 0x02, 0x00)
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// benchGemm runs the SIMD kernels' gemm on gemmShapes in wazero, without
// the host's loop guard, and prints GFLOP/s in thread CPU time, best of
// rounds.
func benchGemm(path string, rounds int) error {
	module, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	memMod, err := rt.InstantiateWithConfig(ctx, memoryModule(1024), wazero.NewModuleConfig().WithName("env"))
	if err != nil {
		return err
	}
	kern, err := rt.InstantiateWithConfig(ctx, module, wazero.NewModuleConfig().WithName("onnx_simd"))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	mem := memMod.Memory()
	gemm := kern.ExportedFunction("gemm")
	res, err := kern.ExportedFunction("gemm_scratch_len").Call(ctx)
	if err != nil {
		return err
	}
	scratchLen := int(res[0])
	r := rand.New(rand.NewPCG(3, 4))
	fmt.Println("| GEMM M×N×K | wasm SIMD128 8×6 in wazero (no loop guard), GFLOP/s in thread CPU time, best of rounds |")
	fmt.Println("|---|---:|")
	for _, sh := range gemmShapes {
		m, n, k := sh[0], sh[1], sh[2]
		// Layout in floats: descriptor, A pointer, scratch, packed A, B, C.
		off := uint32(1 << 16)
		alloc := func(floats int) uint32 { p := off; off += uint32(floats*4+63) &^ 63; return p }
		desc, aptr, scratch := alloc(64), alloc(4), alloc(scratchLen)
		pa, b, c := alloc((m+7)/8*8*k), alloc(k*n), alloc(m*n)
		if uint64(off) > uint64(mem.Size()) {
			return fmt.Errorf("%dx%dx%d does not fit %d bytes of memory", m, n, k, mem.Size())
		}
		fill := func(at uint32, floats int) {
			for i := range floats {
				mem.WriteFloat32Le(at+uint32(4*i), r.Float32()-0.5)
			}
		}
		fill(pa, (m+7)/8*8*k)
		fill(b, k*n)
		mem.WriteUint32Le(aptr, pa)
		one := math.Float32bits(1)
		// gemm_desc of csrc/gemm.c: m n k batch a groups src b b_rs b_cs b_batch, 12 conv fields, c c_rs c_cs
		// c_batch alpha beta bias bias_per_row res res_rs res_cs act lo hi scratch scratch_len a_layout.
		fields := []uint32{uint32(m), uint32(n), uint32(k), 1, aptr, 1, 0, b, uint32(n), 1, 0,
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, c, uint32(n), 1, 0, one, 0, 0, 0, 0, 0, 0, 0, 0, 0, scratch, uint32(scratchLen), 0}
		for i, v := range fields {
			mem.WriteUint32Le(desc+uint32(4*i), v)
		}
		stack := make([]uint64, 1)
		best := time.Duration(math.MaxInt64)
		for range rounds {
			stack[0] = uint64(desc)
			t0 := threadCPU()
			if err := gemm.CallWithStack(ctx, stack); err != nil {
				return err
			}
			if stack[0] != 0 {
				return fmt.Errorf("gemm status %d", stack[0])
			}
			best = min(best, threadCPU()-t0)
		}
		fmt.Printf("| %d×%d×%d | %.1f |\n", m, n, k, 2*float64(m*n*k)/best.Seconds()/1e9)
	}
	return nil
}
