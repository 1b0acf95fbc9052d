package echo

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// fault is a misbehavior the backend injects on request.
type fault int

const (
	faultNone fault = iota
	faultPanic
	faultLoop
	faultGrow
	faultExit
	faultStall
	faultForget
	faultFail
	faultError
	faultUnknownID
	faultDuplicateID
)

var faultNames = map[fault]string{
	faultNone:        "none",
	faultPanic:       "panic",
	faultLoop:        "loop",
	faultGrow:        "grow",
	faultExit:        "exit",
	faultStall:       "stall",
	faultForget:      "forget",
	faultFail:        "fail",
	faultError:       "error",
	faultUnknownID:   "unknown-id",
	faultDuplicateID: "duplicate-id",
}

var faultByName = func() map[string]fault {
	m := make(map[string]fault, len(faultNames))
	for f, n := range faultNames {
		m[n] = f
	}
	return m
}()

func (f fault) String() string { return faultNames[f] }

// Faults returns the names the "fault" option takes:
//
//	none          behave (the default)
//	panic         panic in Infer (the SDK recovers it: INTERNAL with the stack)
//	loop          spin forever in Infer (WASM: the host's loop guard stops it;
//	              subprocess: the host's stall deadline)
//	grow          allocate 1 MiB after 1 MiB and keep it (WASM: the memory cap
//	              traps; subprocess: bound it with grow_limit_mib)
//	exit          exit the process (or the WASM instance) with status 3
//	stall         never complete, never return (until the context ends)
//	forget        return without completing the samples (the SDK fails them)
//	fail          fail each sample with its own error
//	error         return an error from Infer (the SDK fails the samples with it)
//	unknown-id    complete an id that was never issued (a backend bug)
//	duplicate-id  complete each sample twice (a backend bug)
func Faults() []string {
	names := make([]string, 0, len(faultNames))
	for _, n := range faultNames {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// misbehave runs the configured fault on one Infer call.
func (b *Backend) misbehave(ctx context.Context, q sdk.Query, c sdk.Completer) error {
	log := sdk.Logger(ctx)
	log.Warn("echo: injecting a fault", "fault", b.fault.String(), "samples", len(q.Samples))
	switch b.fault {
	case faultPanic:
		panic(fmt.Sprintf("echo: injected panic on %s", sampleIDs(q)))
	case faultLoop:
		b.loop()
	case faultGrow:
		b.grow(ctx)
	case faultExit:
		// Last words go through the SDK's logger: in a subprocess it
		// writes to the real stderr, which outlives the process (os.Stderr
		// is a pipe go-plugin forwards asynchronously).
		log.Error(fmt.Sprintf("echo: injected exit on %s", sampleIDs(q)))
		os.Exit(3)
	case faultStall:
		if wasm {
			b.loop()
		}
		<-ctx.Done()
		return ctx.Err()
	case faultForget:
		return nil
	case faultFail:
		for _, s := range q.Samples {
			c.Fail(s.ID, sdk.Errorf(abi.Unavailable, "echo: injected failure of sample id %d", s.ID))
		}
	case faultError:
		return sdk.Errorf(abi.Unavailable, "echo: injected Infer error on %s", sampleIDs(q))
	case faultUnknownID:
		c.Complete(q.Samples[0].ID+1_000_000, nil, 0)
		b.serve(q, c)
	case faultDuplicateID:
		b.serve(q, c)
		b.serve(q, c)
	}
	return nil
}

// loop spins forever, doing work the compiler cannot drop.
func (b *Backend) loop() {
	for i := uint64(0); ; i++ {
		b.spin += i ^ b.spin>>3
	}
}

// growLimit parses the grow fault's bound; 0 means none.
func (b *Backend) growLimit(v string) {
	n, _ := strconv.ParseUint(v, 10, 32)
	b.growMiB = n
}

// grow allocates memory until the allocation fails (a trap or an abort),
// or until the bound, and then stalls.
func (b *Backend) grow(ctx context.Context) {
	for b.growMiB == 0 || uint64(len(b.hog)) < b.growMiB {
		chunk := make([]byte, 1<<20)
		for i := 0; i < len(chunk); i += 4096 {
			chunk[i] = 1 // touch every page
		}
		b.hog = append(b.hog, chunk)
	}
	sdk.Logger(ctx).Warn("echo: grow limit reached, stalling", "mib", len(b.hog))
	if wasm {
		b.loop()
	}
	<-ctx.Done()
}

// closeMisbehave runs the close_fault option.
func (b *Backend) closeMisbehave() error {
	switch b.closeFault {
	case "hang":
		if wasm {
			b.loop()
		}
		select {}
	case "fail":
		return sdk.Errorf(abi.Internal, "echo: injected Close failure")
	}
	return nil
}
