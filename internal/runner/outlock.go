package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

// LockFile is the file a run holds in its output directory: one run per
// directory, or the result would mix one run's summary with another's
// accuracy log.
const LockFile = ".mlperf-host.lock"

// ErrOutDirBusy is wrapped by the error of a run whose output directory
// another run holds.
var ErrOutDirBusy = errors.New("output directory in use by another run")

// lockOutDir takes the output directory for this run until release. The
// lock is advisory (flock where the OS has it) and dies with its process,
// so a killed run leaves no stale lock; the lock file says who holds it.
//
// # Errors
//
// An exitcode error wrapping ErrOutDirBusy that names the other run.
func lockOutDir(dir, who string) (release func(), err error) {
	path := filepath.Join(dir, LockFile)
	for range 3 { // a holder removing the file as we open it: try again
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("output directory: lock: %w", err)
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("output directory: lock %s: %w", path, err)
		}
		if !held {
			other, _ := os.ReadFile(path)
			f.Close()
			return nil, exitcode.New(exitcode.Config, fmt.Errorf("%w: %s is held by %s", ErrOutDirBusy, dir, describeHolder(other)),
				"pass another --out, or wait for that run to end")
		}
		if !samePath(f, path) {
			f.Close()
			continue
		}
		_ = f.Truncate(0)
		_, _ = fmt.Fprintf(f, "pid %d, started %s: %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339), who)
		return func() {
			_ = os.Remove(path) // while still holding the lock
			f.Close()
		}, nil
	}
	return nil, fmt.Errorf("output directory: lock %s: the file keeps changing", path)
}

// describeHolder turns the lock file's content into a phrase.
func describeHolder(content []byte) string {
	s := strings.TrimSpace(string(content))
	if s == "" {
		return "another run"
	}
	return "another run (" + s + ")"
}

// samePath reports whether f is still the file at path (a holder that was
// releasing may have removed it between our open and our lock).
func samePath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
