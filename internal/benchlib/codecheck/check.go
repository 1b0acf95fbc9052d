package codecheck

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/codesandbox"
)

// Job is one program to judge.
type Job struct {
	// Files are the program's files (name, relative to its directory, to
	// contents).
	Files map[string][]byte
	// Compile is the compiler's command; nil for none.
	Compile []string
	// Compiled says from the compiler's exit status whether the program
	// compiled; nil for status 0.
	Compiled func(exitCode int) bool
	// Run is the program's command.
	Run []string
	// Passed says from how the program ended whether it passed; nil for
	// exit status 0 within the time limit.
	Passed func(codesandbox.Result) bool
}

// Checker runs jobs in the code sandbox.
type Checker struct {
	// Launcher is the code sandbox's launcher (codesandbox.Config).
	Launcher string
	// Timeout is the program's run's wall and CPU time limit, and
	// CompileTimeout the compiler's.
	Timeout, CompileTimeout time.Duration
	// Memory is each step's address space limit in bytes.
	Memory int64
	// Threads is how many threads and processes each step may have.
	Threads int
	// Workers is how many jobs run at once; at least 1.
	Workers int
}

// Validate reports what is missing or out of range.
func (c Checker) Validate() error {
	var errs []error
	if c.Launcher == "" {
		errs = append(errs, errors.New("codecheck: no code sandbox launcher"))
	}
	if c.Timeout <= 0 || c.CompileTimeout <= 0 {
		errs = append(errs, fmt.Errorf("codecheck: timeouts %v and %v", c.Timeout, c.CompileTimeout))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("codecheck: %d workers", c.Workers))
	}
	return errors.Join(errs...)
}

// config is one step's sandbox: limit is its wall and CPU time; the
// compiler may start processes.
func (c Checker) config(limit time.Duration, compiler bool) codesandbox.Config {
	return codesandbox.Config{Launcher: c.Launcher, WallTime: limit, CPUTime: limit, Memory: c.Memory,
		FileSize: 64 << 20, Output: 1 << 16, Threads: c.Threads, Processes: compiler}
}

// Check runs the job: the compiler where it has one, then, where that
// compiled, the program. passed is false for a program that does not
// compile, fails its tests or runs past a time limit.
//
// # Errors
//
// An invalid checker; a sandbox that cannot run (codesandbox.Run's
// errors); ctx's error when it ends first (no verdict).
func (c Checker) Check(ctx context.Context, j Job) (passed bool, err error) {
	if err := c.Validate(); err != nil {
		return false, err
	}
	w, err := codesandbox.NewWorkdir("", j.Files)
	if err != nil {
		return false, err
	}
	defer w.Close()
	if j.Compile != nil {
		res, err := w.Run(ctx, c.config(c.CompileTimeout, true), j.Compile, nil)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return false, err
		}
		ok := res.ExitCode == 0
		if j.Compiled != nil {
			ok = j.Compiled(res.ExitCode)
		}
		if res.TimedOut || res.Signal != "" || !ok {
			return false, nil
		}
	}
	res, err := w.Run(ctx, c.config(c.Timeout, false), j.Run, nil)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return false, err
	}
	if res.TimedOut {
		return false, nil
	}
	if j.Passed != nil {
		return j.Passed(res), nil
	}
	return res.ExitCode == 0 && res.Signal == "", nil
}

// CheckAll runs jobs, Workers at a time: passed[i] is job i's verdict.
//
// # Errors
//
// As [Checker.Check]'s, the first of them, naming the job's index.
func (c Checker) CheckAll(ctx context.Context, jobs []Job) (passed []bool, err error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return Each(ctx, len(jobs), c.Workers, func(i int) (bool, error) {
		ok, err := c.Check(ctx, jobs[i])
		if err != nil {
			return false, fmt.Errorf("program %d: %w", i, err)
		}
		return ok, nil
	})
}

// Each runs verdict(i) for i in [0, n), workers at a time, and returns
// the verdicts: passed[i] is verdict(i)'s. It stops handing out work
// once ctx ends.
//
// # Errors
//
// The first verdict error, else ctx's when it ended first; no verdicts
// then.
func Each(ctx context.Context, n, workers int, verdict func(i int) (bool, error)) (passed []bool, err error) {
	passed = make([]bool, n)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	work := make(chan int)
	for range min(max(workers, 1), max(n, 1)) {
		wg.Go(func() {
			for i := range work {
				ok, err := verdict(i)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				passed[i] = ok
				mu.Unlock()
			}
		})
	}
feed:
	for i := range n {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return passed, nil
}
