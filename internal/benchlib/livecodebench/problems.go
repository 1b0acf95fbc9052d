package livecodebench

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
)

// Problem is one LiveCodeBench problem's tests.
type Problem struct {
	// Inputs and Outputs are its public then private tests'.
	Inputs, Outputs []string
	// FnName is the method a functional (LeetCode) test calls; "" for
	// programs that read stdin.
	FnName string
}

// Files splits a list of problems files, separated by commas, as the
// `--problems` options take them: a release is several files
// (code_generation_lite's release_v6 is test.jsonl, test2.jsonl, ...,
// test6.jsonl).
func Files(list string) []string {
	var out []string
	for f := range strings.SplitSeq(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ReadProblems reads LiveCodeBench's problems files (JSON lines of
// question_id, public_test_cases and private_test_cases, JSON text or, for
// the private ones, base64 of zlib of a pickled JSON text, and metadata
// with func_name), by question_id; a question a later line or file holds
// again is the later one's.
//
// # Errors
//
// Names the file and line of a malformed problem.
func ReadProblems(paths ...string) (map[string]Problem, error) {
	out := map[string]Problem{}
	for _, path := range paths {
		if err := readFile(path, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func readFile(path string, out map[string]Problem) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("LiveCodeBench problems: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		id, p, err := parseProblem(sc.Bytes())
		if err != nil {
			return fmt.Errorf("LiveCodeBench problems %s: line %d: %w", path, line, err)
		}
		out[id] = p
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("LiveCodeBench problems %s: %w", path, err)
	}
	return nil
}

type test struct {
	Input    string `json:"input"`
	Output   string `json:"output"`
	TestType string `json:"testtype"`
}

func parseProblem(b []byte) (string, Problem, error) {
	var rec struct {
		QuestionID string `json:"question_id"`
		Public     string `json:"public_test_cases"`
		Private    string `json:"private_test_cases"`
		Metadata   string `json:"metadata"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return "", Problem{}, err
	}
	if rec.QuestionID == "" {
		return "", Problem{}, errors.New("no question_id")
	}
	var public, private []test
	if err := json.Unmarshal([]byte(rec.Public), &public); err != nil {
		return "", Problem{}, fmt.Errorf("question %s: public_test_cases: %w", rec.QuestionID, err)
	}
	if err := json.Unmarshal([]byte(rec.Private), &private); err != nil {
		text, derr := unpackPrivate(rec.Private)
		if derr != nil {
			return "", Problem{}, fmt.Errorf("question %s: private_test_cases: neither JSON nor packed: %w", rec.QuestionID, derr)
		}
		if err := json.Unmarshal([]byte(text), &private); err != nil {
			return "", Problem{}, fmt.Errorf("question %s: private_test_cases: %w", rec.QuestionID, err)
		}
	}
	var meta struct {
		FuncName *string `json:"func_name"`
	}
	if rec.Metadata != "" {
		if err := json.Unmarshal([]byte(rec.Metadata), &meta); err != nil {
			return "", Problem{}, fmt.Errorf("question %s: metadata: %w", rec.QuestionID, err)
		}
	}
	p := Problem{}
	if meta.FuncName != nil {
		p.FnName = *meta.FuncName
	}
	for _, t := range append(public, private...) {
		if t.TestType != "stdin" && t.TestType != "functional" {
			return "", Problem{}, fmt.Errorf("question %s: test type %q", rec.QuestionID, t.TestType)
		}
		p.Inputs, p.Outputs = append(p.Inputs, t.Input), append(p.Outputs, t.Output)
	}
	return rec.QuestionID, p, nil
}

// unpackPrivate undoes base64(zlib(pickle(json text))).
func unpackPrivate(s string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", err
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	pk, err := io.ReadAll(io.LimitReader(zr, 1<<30))
	if err != nil {
		return "", err
	}
	v, err := pickle.Load(bytes.NewReader(pk), int64(len(pk)))
	if err != nil {
		return "", err
	}
	text, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("the pickle holds a %T, not a string", v)
	}
	return text, nil
}

// WriteProblems writes problems as LiveCodeBench's problems file, the
// private tests as JSON text (the fixtures'), in the order of ids.
func WriteProblems(path string, problems map[string]Problem, ids []string) error {
	var b bytes.Buffer
	for _, id := range ids {
		p := problems[id]
		kind := "stdin"
		meta := "{}"
		if p.FnName != "" {
			kind = "functional"
			m, _ := json.Marshal(map[string]string{"func_name": p.FnName})
			meta = string(m)
		}
		tests := make([]test, len(p.Inputs))
		for i := range tests {
			tests[i] = test{Input: p.Inputs[i], Output: p.Outputs[i], TestType: kind}
		}
		pub, _ := json.Marshal(tests[:min(1, len(tests))])
		priv, _ := json.Marshal(tests[min(1, len(tests)):])
		rec, err := json.Marshal(map[string]string{"question_id": id, "question_title": id, "question_content": "",
			"platform": "atcoder", "contest_id": "fixture", "contest_date": "2023-05-01T00:00:00", "starter_code": "",
			"difficulty": "easy", "public_test_cases": string(pub), "private_test_cases": string(priv), "metadata": meta})
		if err != nil {
			return err
		}
		b.Write(rec)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
