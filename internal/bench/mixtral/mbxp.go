package mixtral

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/codecheck"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/codesandbox"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// mbxpCheck runs a Python program as mxeval's check_correctness does.
//
//go:embed mbxp_check.py
var mbxpCheck []byte

// MBXP's limits in evaluate_mbxp.py and mxeval: each program runs for
// at most 20 s (timeout=20.0), a compiler for 100 s; n_workers programs
// at once, 2 unless given.
const (
	MBXPTimeout        = 20 * time.Second
	mbxpCompileTimeout = 100 * time.Second
	MBXPWorkers        = 2
)

// mbxpProblem is one MBXP sample as evaluate-accuracy.py's
// create_mbxp_dict makes it: the language and entry point from the row's
// id (LANG_ENTRYPOINT), its test code (gt_output) and the decoded
// response. (The prompt, the row's input, is not read: evaluate_mbxp.py
// empties it, the model repeats it.)
type mbxpProblem struct {
	qslIdx                      uint64
	lang, entry, test, response string
}

// newMBXPProblem is create_mbxp_dict of row i.
func newMBXPProblem(d *Data, i uint64, response string) (mbxpProblem, error) {
	if d.IDs == nil || d.Inputs == nil {
		return mbxpProblem{}, fmt.Errorf("MBXP row %d: the data set has no %q and %q columns", i, idColumn, inputColumn)
	}
	lang, entry, ok := strings.Cut(d.IDs[i], "_")
	if !ok {
		return mbxpProblem{}, fmt.Errorf("MBXP row %d: id %q is not LANGUAGE_ENTRYPOINT", i, d.IDs[i])
	}
	return mbxpProblem{qslIdx: i, lang: lang, entry: entry, test: d.Targets[i], response: response}, nil
}

// mbxpSolution is evaluate_mbxp.py's post-processing of a response: cut
// at the first ``` (a code block's end), leading whitespace stripped in
// Python, then every \_ made _ (Mixtral escapes underscores).
func mbxpSolution(lang, response string) string {
	s, _, _ := strings.Cut(response, "```")
	if lang == "python" {
		s = strings.TrimLeftFunc(s, py.IsSpace)
	}
	return strings.ReplaceAll(s, `\_`, "_")
}

// mbxpLanguage is how mxeval checks one of the languages evaluate_mbxp.py
// scores: the programs its toolchain needs and the Debian packages that
// install them, and the job of a program.
type mbxpLanguage struct {
	name     string
	programs []string
	debian   string
	job      func(p mbxpProblem, solution string, timeout time.Duration) (codecheck.Job, error)
}

// mbxpLanguages are the languages evaluate_mbxp.py scores, in its order;
// it skips the others (csharp, go, java, kotlin, perl, scala, swift).
// Each program is mxeval's: prompt ("") + solution + test code, in one
// file, compiled and run as mxeval's check_correctness_LANG does.
func mbxpLanguages() []mbxpLanguage {
	return []mbxpLanguage{
		{name: "cpp", programs: []string{"g++"}, debian: "g++", job: func(p mbxpProblem, s string, _ time.Duration) (codecheck.Job, error) {
			return codecheck.Job{Files: source("main.cpp", s+p.test), Compile: []string{"g++", "main.cpp", "-o", "main_cpp"},
				Run: []string{"./main_cpp"}}, nil
		}},
		{name: "python", programs: []string{"python3"}, debian: "python3", job: pythonJob},
		{name: "php", programs: []string{"php"}, debian: "php-cli", job: interpreted("main.php", "php")},
		{name: "javascript", programs: []string{"node"}, debian: "nodejs", job: interpreted("main.js", "node")},
		{name: "ruby", programs: []string{"ruby"}, debian: "ruby", job: interpreted("main.rb", "ruby")},
		// mxeval's npx tsc is the tsc on the PATH; it counts as compiled
		// only exit status 2 (errors, output emitted: the test code's
		// import of Node's assert has no type declarations), 0 does not.
		{name: "typescript", programs: []string{"tsc", "node"}, debian: "node-typescript nodejs", job: func(p mbxpProblem, s string, _ time.Duration) (codecheck.Job, error) {
			return codecheck.Job{Files: source("main.ts", s+p.test), Compile: []string{"tsc", "main.ts", "--target", "es5", "--lib", "es2016"},
				Compiled: func(status int) bool { return status == 2 }, Run: []string{"node", "main.js"}}, nil
		}},
	}
}

// MBXPLanguages are the languages evaluate_mbxp.py scores.
func MBXPLanguages() []string {
	langs := mbxpLanguages()
	names := make([]string, len(langs))
	for i, l := range langs {
		names[i] = l.name
	}
	return names
}

func mbxpLanguageOf(name string) (mbxpLanguage, bool) {
	langs := mbxpLanguages()
	i := slices.IndexFunc(langs, func(l mbxpLanguage) bool { return l.name == name })
	if i < 0 {
		return mbxpLanguage{}, false
	}
	return langs[i], true
}

// need is a ToolchainError for the first of the language's programs
// the sandbox's PATH lacks.
func (l mbxpLanguage) need() error {
	return codecheck.Need("MBXP "+l.name, "Debian: apt-get install "+l.debian, l.programs...)
}

func source(name, text string) map[string][]byte { return map[string][]byte{name: []byte(text)} }

// interpreted is the job of a language whose program runs as
// INTERPRETER FILE.
func interpreted(file, interpreter string) func(mbxpProblem, string, time.Duration) (codecheck.Job, error) {
	return func(p mbxpProblem, s string, _ time.Duration) (codecheck.Job, error) {
		return codecheck.Job{Files: source(file, s+p.test), Run: []string{interpreter, file}}, nil
	}
}

// pythonJob is mxeval's check_correctness: prompt ("") + solution + "\n"
// + test code + "\n" + "check(ENTRY)", exec'd by mbxp_check.py under an
// alarm of timeout, whose last line says the verdict after a nonce.
func pythonJob(p mbxpProblem, s string, timeout time.Duration) (codecheck.Job, error) {
	var nb [16]byte
	if _, err := rand.Read(nb[:]); err != nil {
		return codecheck.Job{}, err
	}
	nonce := hex.EncodeToString(nb[:])
	program := s + "\n" + p.test + "\n" + "check(" + p.entry + ")"
	return codecheck.Job{
		Files: map[string][]byte{"mbxp_check.py": mbxpCheck, "program.py": []byte(program)},
		Run:   []string{"python3", "mbxp_check.py", nonce, strconv.FormatFloat(timeout.Seconds(), 'g', -1, 64)},
		Passed: func(r codesandbox.Result) bool {
			out := strings.TrimRight(string(r.Stdout), "\n")
			return out[strings.LastIndexByte(out, '\n')+1:] == nonce+" PASS"
		},
	}, nil
}

// MBXPGrader is what grading MBXP's samples needs.
type MBXPGrader struct {
	// Launcher is the code sandbox's launcher.
	Launcher string
	// Workers is evaluate-accuracy.py's n_workers: how many programs
	// run at once, at most the machine's CPUs; 0 for its default,
	// [MBXPWorkers].
	Workers int
	// Timeout is each program's limit; 0 for [MBXPTimeout].
	Timeout time.Duration
}

// MBXPLanguageScore is one language's line in evaluate_mbxp.py's
// lang_passed and lang_counts.
type MBXPLanguageScore struct {
	Language       string
	Passed, Counts int
}

// gradeMBXP is evaluate_mbxp.py's evaluate_mbxp: the problems of the
// languages it scores, each program run against its test code; the
// languages in the order they first appear, and by qsl_idx whether each
// problem passed.
func gradeMBXP(ctx context.Context, g MBXPGrader, problems []mbxpProblem) ([]MBXPLanguageScore, map[uint64]bool, error) {
	c := codecheck.Checker{Launcher: g.Launcher, Timeout: g.Timeout, CompileTimeout: mbxpCompileTimeout,
		Memory: 8 << 30, Threads: 64, Workers: g.Workers}
	if c.Timeout <= 0 {
		c.Timeout = MBXPTimeout
	}
	if c.Workers <= 0 {
		c.Workers = MBXPWorkers
	}
	c.Workers = min(c.Workers, max(runtime.NumCPU(), 1))
	var scores []MBXPLanguageScore
	var jobs []codecheck.Job
	var of []int // jobs' index in scores
	var idx []uint64
	order := map[string]int{}
	for _, p := range problems {
		if _, ok := order[p.lang]; !ok {
			order[p.lang] = len(order)
		}
	}
	byLang := make([][]mbxpProblem, len(order))
	for _, p := range problems {
		byLang[order[p.lang]] = append(byLang[order[p.lang]], p)
	}
	for _, ps := range byLang {
		l, ok := mbxpLanguageOf(ps[0].lang)
		if !ok {
			continue
		}
		if err := l.need(); err != nil {
			return nil, nil, err
		}
		for _, p := range ps {
			j, err := l.job(p, mbxpSolution(p.lang, p.response), c.Timeout)
			if err != nil {
				return nil, nil, err
			}
			jobs, of, idx = append(jobs, j), append(of, len(scores)), append(idx, p.qslIdx)
		}
		scores = append(scores, MBXPLanguageScore{Language: l.name, Counts: len(ps)})
	}
	if len(jobs) == 0 {
		return nil, nil, errors.New("the log's MBXP samples are none in the languages evaluate_mbxp.py scores (" +
			strings.Join(MBXPLanguages(), ", ") + "), whose count it divides by")
	}
	if g.Launcher == "" {
		return nil, nil, errors.New("MBXP samples need the code sandbox's launcher")
	}
	passed, err := c.CheckAll(ctx, jobs)
	if err != nil {
		return nil, nil, fmt.Errorf("MBXP: %w", err)
	}
	verdicts := make(map[uint64]bool, len(passed))
	for i, ok := range passed {
		verdicts[idx[i]] = ok
		if ok {
			scores[of[i]].Passed++
		}
	}
	return scores, verdicts, nil
}
