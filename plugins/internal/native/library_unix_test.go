//go:build darwin || freebsd || linux || netbsd

package native

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOpenErrorIsItsOwn: every failed Open reports its own path's loader
// error, however many run at once and however often their goroutines
// move between threads (dlerror's message belongs to the thread that
// called dlopen).
func TestOpenErrorIsItsOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const workers, each = 8, 200
	errs := make(chan string, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				path := filepath.Join(dir, fmt.Sprintf("lib%d-%d.so", w, i))
				_, err := Open([]string{path})
				if err == nil {
					errs <- path + ": opened"
				} else if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "No such file") {
					errs <- path + ": " + msg
				}
				runtime.Gosched()
			}
		})
	}
	// Something else keeps the scheduler moving goroutines.
	stop := make(chan struct{})
	var spin sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		spin.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	spin.Wait()
	close(errs)
	var bad []string
	for e := range errs {
		bad = append(bad, e)
	}
	assert.Empty(t, bad, "errors that are not their own call's")
}
