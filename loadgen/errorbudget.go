package loadgen

import (
	"strconv"
	"sync/atomic"
)

// DefaultSampleErrorLimit is how many per-sample error entries (a failed
// sample, a rejected response) a test writes to the detail log by default.
const DefaultSampleErrorLimit = 64

// WithSampleErrorLimit bounds the per-sample error entries of the detail
// log: the first n failed samples and rejected responses of the test are
// logged one by one, the rest only counted, and each phase that dropped
// some ends with one entry giving the count. n < 0 logs every one (the
// official behaviour, which writes one line per bad response however many
// there are); the default is [DefaultSampleErrorLimit].
//
// Without a bound a SUT failing every sample of a 24-million-sample
// Offline query would write gigabytes of the same line, and hold every
// message in memory for the summary's count.
func WithSampleErrorLimit(n int) Option {
	return func(r *run) { r.errBudget.limit = int64(n) }
}

// errorBudget counts the per-sample error entries of a test.
type errorBudget struct {
	limit   int64 // < 0: unlimited
	logged  atomic.Int64
	dropped atomic.Int64 // dropped since the last report
}

// take reports whether one more per-sample entry may be written, counting
// it as dropped otherwise.
func (b *errorBudget) take() bool {
	if b.limit < 0 || b.logged.Add(1) <= b.limit {
		return true
	}
	b.dropped.Add(1)
	return false
}

// report writes one entry for the entries dropped since the last report.
func (b *errorBudget) report(l *logs) {
	n := b.dropped.Swap(0)
	if n == 0 {
		return
	}
	l.detail("error_runtime", vString(strconv.FormatInt(n, 10)+" more sample errors were not logged: a test logs the first "+
		strconv.FormatInt(b.limit, 10)+" one by one and counts the rest"), levelError, "loadgen/errorbudget.go")
}
