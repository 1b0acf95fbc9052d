package livecodebench

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/codecheck"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/codesandbox"
)

//go:embed harness.py
var harness []byte

// Timeout is how long each test may take: LiveCodeBench's timeout=60,
// which both official scripts pass.
const Timeout = 60 * time.Second

// Submission is one program to judge against one problem's tests.
type Submission struct {
	// QuestionID names the problem.
	QuestionID string
	// Code is the program, Python.
	Code string
}

// Grader runs programs against LiveCodeBench's tests in the code sandbox.
type Grader struct {
	// Launcher is the code sandbox's launcher (codesandbox.Config).
	Launcher string
	// Problems are the problems files, as [Files] splits them.
	Problems []string
	// Timeout is each test's limit; 0 for [Timeout].
	Timeout time.Duration
}

// ErrNoProblems is [Grader.Grade]'s error when no problems file is named.
var ErrNoProblems = errors.New("no LiveCodeBench problems file")

// Grade reads the problems and runs each submission against its
// problem's tests, a few at a time: passed[i] is whether every test of
// submission i passes. A submission whose problem the files lack, or
// whose code is empty, does not pass and is not run (the official
// scripts' verdict).
//
// # Errors
//
// [ErrNoProblems]; no launcher; a problems file [ReadProblems] refuses;
// a sandbox that cannot run; ctx's error when it ends first (no
// verdict).
func (g Grader) Grade(ctx context.Context, subs []Submission) (passed []bool, err error) {
	if len(g.Problems) == 0 {
		return nil, ErrNoProblems
	}
	if g.Launcher == "" {
		return nil, errors.New("livecodebench: no code sandbox launcher")
	}
	problems, err := ReadProblems(g.Problems...)
	if err != nil {
		return nil, err
	}
	return codecheck.Each(ctx, len(subs), min(runtime.NumCPU(), 8), func(i int) (bool, error) {
		p, ok := problems[subs[i].QuestionID]
		if !ok || subs[i].Code == "" {
			return false, nil
		}
		pass, err := g.passes(ctx, subs[i].Code, p)
		if err != nil {
			return false, fmt.Errorf("livecodebench %s: %w", subs[i].QuestionID, err)
		}
		return pass, nil
	})
}

// config is the sandbox of one program's tests: the official scripts'
// limit per test and over all (timeout+1 seconds a test, 5 more), 8 GiB
// of address space (LiveCodeBench sets none), 64 MiB files.
func (g Grader) config(tests int) codesandbox.Config {
	total := (g.timeout()+time.Second)*time.Duration(tests) + 5*time.Second
	return codesandbox.Config{Launcher: g.Launcher, WallTime: total, CPUTime: total,
		Memory: 8 << 30, FileSize: 64 << 20, Output: 1 << 20}
}

func (g Grader) timeout() time.Duration {
	if g.Timeout <= 0 {
		return Timeout
	}
	return max(g.Timeout.Round(time.Second), time.Second) // the harness's alarm counts whole seconds
}

// passes runs code against p's tests in the sandbox: true when every
// test passes.
func (g Grader) passes(ctx context.Context, code string, p Problem) (bool, error) {
	var fn any
	if p.FnName != "" {
		fn = p.FnName
	}
	tests, err := json.Marshal(map[string]any{"inputs": p.Inputs, "outputs": p.Outputs, "fn_name": fn,
		"timeout": int(g.timeout() / time.Second)})
	if err != nil {
		return false, err
	}
	var nb [16]byte
	if _, err := rand.Read(nb[:]); err != nil {
		return false, err
	}
	nonce := hex.EncodeToString(nb[:])
	files := map[string][]byte{"harness.py": harness, "tests.json": tests, "solution.py": []byte(code)}
	res, err := codesandbox.Run(ctx, g.config(len(p.Inputs)), files, []string{"python3", "harness.py", nonce}, nil)
	if err == nil {
		err = ctx.Err() // interrupted: no verdict
	}
	if err != nil {
		return false, err
	}
	out := strings.TrimRight(string(res.Stdout), "\n")
	last := out[strings.LastIndexByte(out, '\n')+1:]
	return last == nonce+" PASS", nil
}
