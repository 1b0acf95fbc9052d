package abi_test

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
)

// ringFile returns a zeroed, 8-byte aligned ring file as a mapping is.
func ringFile(t testing.TB, issueSlots, completionSlots uint32) []byte {
	t.Helper()
	size := abi.RingFileSize(issueSlots, completionSlots)
	words := make([]uint64, size/8)
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), size)
	require.NoError(t, abi.InitRingFile(mem, issueSlots, completionSlots))
	return mem
}

// twoSides opens the same file twice, as the host and the plugin do.
func twoSides(t testing.TB, mem []byte) (hostIssue, hostCompletion, pluginIssue, pluginCompletion *abi.Ring) {
	t.Helper()
	hi, hc, err := abi.OpenRings(mem)
	require.NoError(t, err)
	pi, pc, err := abi.OpenRings(mem)
	require.NoError(t, err)
	return hi, hc, pi, pc
}

func recs(first uint64, n int) []byte {
	var b []byte
	for i := range n {
		b = abi.AppendIssueRecord(b, abi.IssueRecord{ID: first + uint64(i), Index: uint64(i)})
	}
	return b
}

func drainAll(t *testing.T, r *abi.Ring, max int) []uint64 {
	t.Helper()
	var ids []uint64
	_, err := r.Drain(max, func(b []byte) error {
		rs, err := abi.ParseIssueRecords(b)
		require.NoError(t, err)
		for i := range rs.Len() {
			ids = append(ids, rs.At(i).ID)
		}
		return nil
	})
	require.NoError(t, err)
	return ids
}

func TestRingPushDrainWrapsAround(t *testing.T) {
	t.Parallel()
	producer, _, consumer, _ := twoSides(t, ringFile(t, 8, 8))
	assert.Equal(t, 8, producer.Slots())
	n, err := producer.Push(recs(0, 5))
	require.NoError(t, err)
	assert.Equal(t, 5*abi.IssueRecordSize, n)
	assert.Equal(t, []uint64{0, 1, 2, 3, 4}, drainAll(t, consumer, 3))

	n, err = producer.Push(recs(5, 10)) // 8 free: 3 at the end, 5 from the start
	require.NoError(t, err)
	assert.Equal(t, 8*abi.IssueRecordSize, n, "a full ring takes what fits")
	n, err = producer.Push(recs(13, 1))
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Equal(t, []uint64{5, 6, 7, 8, 9, 10, 11, 12}, drainAll(t, consumer, 100))
	assert.Empty(t, drainAll(t, consumer, 100))
}

func TestRingCorruptCounters(t *testing.T) {
	t.Parallel()
	mem := ringFile(t, 8, 8)
	producer, _, consumer, _ := twoSides(t, mem)
	_, err := producer.Push(recs(0, 2))
	require.NoError(t, err)
	// A hostile producer publishes more records than the ring holds.
	binary.LittleEndian.PutUint64(mem[4096:], 1000)
	_, err = consumer.Drain(100, func([]byte) error { return nil })
	require.ErrorIs(t, err, abi.ErrRingCorrupt)
	// A hostile consumer moves its tail past the head.
	binary.LittleEndian.PutUint64(mem[4096+64:], 1<<40)
	_, err = producer.Push(recs(2, 1))
	require.ErrorIs(t, err, abi.ErrRingCorrupt)
}

func TestOpenRingsChecksTheHeader(t *testing.T) {
	t.Parallel()
	good := ringFile(t, 16, 32)
	_, _, err := abi.OpenRings(good)
	require.NoError(t, err)
	for name, mutate := range map[string]func(b []byte) []byte{
		"magic":       func(b []byte) []byte { b[0] = 'X'; return b },
		"version":     func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 9); return b },
		"slots":       func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 3); return b },
		"record size": func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 32); return b },
		"short":       func(b []byte) []byte { return b[:len(b)-4096] },
		"empty":       func([]byte) []byte { return nil },
	} {
		_, _, err := abi.OpenRings(mutate(ringFile(t, 16, 32)))
		require.ErrorIs(t, err, abi.ErrRingCorrupt, name)
	}
	require.Error(t, abi.InitRingFile(make([]byte, abi.RingFileSize(16, 16)), 12, 16))
}

// TestRingConsume runs a producer and the consumer's loop in two
// goroutines, with the doorbell a channel: every record arrives once, in
// order, whether the consumer keeps polling or sleeps between bursts.
func TestRingConsume(t *testing.T) {
	t.Parallel()
	for _, spin := range []time.Duration{0, time.Millisecond} {
		t.Run(spin.String(), func(t *testing.T) {
			t.Parallel()
			producer, _, consumer, _ := twoSides(t, ringFile(t, 64, 64))
			const total = 20000
			wake, stop := make(chan struct{}, 1), make(chan struct{})
			var mu sync.Mutex
			var got []uint64
			done := make(chan error, 1)
			go func() {
				done <- consumer.Consume(abi.RingPoll{Mu: &mu, Stop: stop, Wake: wake, Spin: spin, Max: 16}, func(b []byte) error {
					rs, err := abi.ParseIssueRecords(b)
					if err != nil {
						return err
					}
					for i := range rs.Len() {
						got = append(got, rs.At(i).ID)
					}
					return nil
				})
			}()
			doorbells := 0
			for next := 0; next < total; {
				if next%1000 == 0 {
					time.Sleep(2 * time.Millisecond) // let the consumer fall asleep
				}
				n, err := producer.Push(recs(uint64(next), min(7, total-next)))
				require.NoError(t, err)
				next += n / abi.IssueRecordSize
				if producer.Wake() {
					doorbells++
					select {
					case wake <- struct{}{}:
					default:
					}
				}
			}
			require.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(got) == total
			}, 10*time.Second, time.Millisecond)
			close(stop)
			require.NoError(t, <-done)
			for i, id := range got {
				require.Equal(t, uint64(i), id)
			}
			assert.Positive(t, doorbells, "the consumer slept at least once")
		})
	}
}

// FuzzRingDrain: whatever the shared memory holds, Drain neither panics
// nor delivers more than the ring's slots at once, and OpenRings accepts
// only well-formed headers.
func FuzzRingDrain(f *testing.F) {
	f.Add(uint64(3), uint64(0), []byte{})
	f.Add(uint64(1<<63), uint64(5), []byte{1, 2, 3})
	f.Add(uint64(9), uint64(2), []byte{})
	f.Fuzz(func(t *testing.T, head, tail uint64, header []byte) {
		mem := ringFile(t, 8, 8)
		copy(mem[24:], header) // past the checked header fields
		_, _, consumer, _ := twoSides(t, mem)
		binary.LittleEndian.PutUint64(mem[4096:], head)
		binary.LittleEndian.PutUint64(mem[4096+64:], tail)
		_, err := consumer.Drain(4, func(b []byte) error {
			require.LessOrEqual(t, len(b), 4*abi.IssueRecordSize)
			require.Zero(t, len(b)%abi.IssueRecordSize)
			return nil
		})
		if head > 8 {
			require.ErrorIs(t, err, abi.ErrRingCorrupt)
		} else {
			require.NoError(t, err)
		}
	})
}
