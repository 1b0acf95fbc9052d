package progress

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Counts is a snapshot of a run's counters.
type Counts struct {
	Issued, Completed int64
	// Elapsed is the time since the run started issuing; when zero, the
	// bar's own clock since Start is used.
	Elapsed time.Duration
	// Expected is the expected duration; 0 when unknown.
	Expected time.Duration
}

// Bar draws progress lines on a writer.
type Bar struct {
	w io.Writer
	// Label starts the line, e.g. "Offline performance".
	label    string
	counts   func() Counts
	interval time.Duration

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// New makes a bar that reads counts every interval (0: 250ms) and writes to
// w. Start it with Start; Stop erases it.
func New(w io.Writer, label string, counts func() Counts, interval time.Duration) *Bar {
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	return &Bar{w: w, label: label, counts: counts, interval: interval,
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Start draws until Stop or ctx ends, from a goroutine that Stop joins.
func (b *Bar) Start(ctx context.Context) {
	go func() {
		defer close(b.done)
		start := time.Now()
		t := time.NewTicker(b.interval)
		defer t.Stop()
		var prev Counts
		prevAt := start
		width := 0
		for {
			select {
			case <-b.stop:
				fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", width))
				return
			case <-ctx.Done():
				fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", width))
				return
			case now := <-t.C:
				c := b.counts()
				qps := 0.0
				if dt := now.Sub(prevAt).Seconds(); dt > 0 {
					qps = float64(c.Completed-prev.Completed) / dt
				}
				prev, prevAt = c, now
				if c.Elapsed == 0 {
					c.Elapsed = now.Sub(start)
				}
				line := Line(b.label, c, qps)
				pad := max(0, width-len(line))
				width = len(line)
				fmt.Fprintf(b.w, "\r%s%s", line, strings.Repeat(" ", pad))
			}
		}
	}()
}

// Stop erases the line and waits for the drawing goroutine. It is
// idempotent.
func (b *Bar) Stop() {
	b.once.Do(func() { close(b.stop) })
	<-b.done
}

// barWidth is the number of cells of the bar.
const barWidth = 24

// Line renders one progress line:
// "Offline performance [#########...............] 12s / 60s  issued 1200  done 1180  98.5/s".
func Line(label string, c Counts, rate float64) string {
	elapsed, expected := c.Elapsed, c.Expected
	var b strings.Builder
	b.WriteString(label)
	if expected > 0 {
		frac := min(1, float64(elapsed)/float64(expected))
		n := int(frac * barWidth)
		fmt.Fprintf(&b, " [%s%s] %s / %s", strings.Repeat("#", n), strings.Repeat(".", barWidth-n),
			elapsed.Truncate(time.Second), expected.Truncate(time.Second))
	} else {
		fmt.Fprintf(&b, " %s", elapsed.Truncate(time.Second))
	}
	fmt.Fprintf(&b, "  issued %d  done %d  %.1f/s", c.Issued, c.Completed, rate)
	return b.String()
}
