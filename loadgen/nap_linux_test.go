//go:build linux

package loadgen

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func timerSlack(t *testing.T) uintptr {
	t.Helper()
	v, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerSlack, 0, 0)
	require.Zero(t, errno)
	return v
}

func sliceOf(t *testing.T) uint64 {
	t.Helper()
	if sysSchedGetattr == 0 {
		return 0
	}
	var a schedAttr
	_, _, errno := syscall.RawSyscall6(sysSchedGetattr, 0, uintptr(unsafe.Pointer(&a)), unsafe.Sizeof(a), 0, 0, 0)
	require.Zero(t, errno)
	return a.runtime
}

// TestTuneThreadRestores checks that a final nap leaves the runtime's
// thread as it found it: timer slack and scheduler slice.
func TestTuneThreadRestores(t *testing.T) {
	// Not parallel: the thread is locked and inspected.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	slack, slice := timerSlack(t), sliceOf(t)
	restore := tuneThread()
	assert.Equal(t, uintptr(1), timerSlack(t), "1 ns slack while the issuer naps")
	t.Logf("slice before %v, while napping %v", time.Duration(slice), time.Duration(sliceOf(t)))
	restore()
	assert.Equal(t, slack, timerSlack(t))
	assert.Equal(t, slice, sliceOf(t))
}

// TestServerPhaseHoldsTunedThread checks that the issuer's thread stays
// tuned across final naps while it is held, and that a Server run hands
// the calling thread back as it found it.
func TestServerPhaseHoldsTunedThread(t *testing.T) {
	// Not parallel: the thread is locked and inspected.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	slack, slice := timerSlack(t), sliceOf(t)
	release := holdIssuerThread()
	assert.Equal(t, uintptr(1), timerSlack(t), "1 ns slack while the phase runs")
	nap(time.Microsecond, true)
	assert.Equal(t, uintptr(1), timerSlack(t), "a final nap leaves the tuning in place")
	release()
	assert.Equal(t, slack, timerSlack(t))
	assert.Equal(t, slice, sliceOf(t))

	s := DefaultTestSettings()
	s.Scenario = Server
	s.ServerTargetQPS = 2000
	s.MinDuration = 20 * time.Millisecond
	s.MinQueryCount = 20
	_, err := StartTest(context.Background(), &nullSUT{}, &fakeQSL{total: 8, perf: 8}, s, LogSettings{OutDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, slack, timerSlack(t), "the run restores the calling thread")
	assert.Equal(t, slice, sliceOf(t))
}

func TestCalibrateNapSpin(t *testing.T) {
	t.Parallel()
	spin := calibrateNapSpin()
	assert.GreaterOrEqual(t, spin, time.Duration(0))
	assert.LessOrEqual(t, spin, maxNapSpin)
}

// TestServerCancelWhileNapping cancels a Server run whose issuer is asleep
// in the kernel until a query a second away: the run stops at the next
// nap's end instead of the query's time.
func TestServerCancelWhileNapping(t *testing.T) {
	t.Parallel()
	s := DefaultTestSettings()
	s.Scenario = Server
	s.ServerTargetQPS = 0.1 // queries about 10 s apart
	s.MinDuration = time.Minute
	s.MinQueryCount = 1
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	res, err := StartTest(ctx, &nullSUT{}, &fakeQSL{total: 8, perf: 8}, s, LogSettings{OutDir: t.TempDir()})
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, res.Valid)
	// Every nap is at most maxNap; the bound leaves room for a loaded
	// machine and only fails if the issuer slept until the next query.
	assert.Less(t, time.Since(start), 5*time.Second)
}
