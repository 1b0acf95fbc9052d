package gptoss

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/hftokenizer"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/livecodebench"
)

var update = flag.Bool("update", false, "rewrite testdata/decoder, testdata/answers and testdata/livecodebench")

// The fixtures, in the reference's form, that verify.sh runs the official
// eval_mlperf_accuracy.py on; each directory's official_stdout.golden is
// what it printed there.
const (
	decoderDir = "testdata/decoder"
	answersDir = "testdata/answers"
	lcbDir     = "testdata/livecodebench"
	problems   = "problems.jsonl"
	setFile    = "acc_eval_inputs.pkl"
	logFile    = "mlperf_log_accuracy.json"
	stdoutFile = "official_stdout.golden"
)

// decoderFiles are testdata/decoder's files: DecoderAccuracySet, the
// decoder's tokenizer, and the log of what the signature decoder
// answers each sample (the six tokens after its prompt's last).
func decoderFiles(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	samples := DecoderAccuracySet()
	require.NoError(t, WriteSet(filepath.Join(dir, setFile), samples, true))
	require.NoError(t, WriteDecoderTokenizer(dir))
	var entries []accuracy.Entry
	for i, s := range samples {
		var data []byte
		last := s.Tokens[len(s.Tokens)-1]
		for id := last + 1; id <= last+6 && id < 64; id++ {
			data = binary.LittleEndian.AppendUint32(data, uint32(id))
		}
		entries = append(entries, accuracy.Entry{SeqID: uint64(i), QSLIdx: uint64(i), Data: data})
	}
	var b bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&b, entries))
	require.NoError(t, os.WriteFile(filepath.Join(dir, logFile), b.Bytes(), 0o644))
	return readDir(t, dir)
}

// answer is one sample of testdata/answers: a model's output text, its
// sub-dataset and ground truth, and the answer the script extracts.
type answer struct {
	dataset string
	truth   any
	output  string
	correct bool
}

// answers are outputs on the edges of the script's extraction: the
// harmony channels, Python's Unicode \s, \d and \b, the full stop after
// an AIME answer, markdown bold, quoted lists, escaped newlines.
var answers = []answer{
	{"gpqa_diamond", "C", "<|channel|>analysis<|message|>Maybe A.<|end|><|start|>assistant<|channel|>final<|message|>**C**<|return|>", true},
	{"gpqa_diamond", "A", "<|channel|>analysis<|message|>Answer: B<|end|><|channel|>final 明<|message|>(A) is right", true},
	{"gpqa_diamond", "B", "<|channel|>final<|message|>The answer is B.", false},
	{"gpqa_diamond", "B", "<|channel|>final<|message|>Thus, Answer:\u202fB\u202fbecause", true},
	{"gpqa_diamond", "D", "I think FINAL ANSWER: (d) and then more", true},
	{"gpqa_diamond", "D", "ANSWER: D ANSWER: C", true}, // "Answer: X" in the final section: the first
	{"gpqa_diamond", "C", "ANSWER: Dé ANSWER: C", true},
	{"gpqa_diamond", "A", "['A']", true},
	{"gpqa_diamond", "A", `It is \nAnswer: A\n`, true},
	{"gpqa_diamond", "B", "xANSWER: A, realANSWER B", false},
	{"gpqa_diamond", "b", "Answer: b", true},
	{"gpqa_diamond", nil, "Answer: B", false},
	{"gpqa_diamond", "B", "ANSWERB and nothing", true}, // no \b after Answer
	{"gpqa_diamond", "C", "  \t", false},
	{"aime25", "42", "so \\boxed{ 42 } and then \\boxed{17}", false},
	{"aime25", "17", "so \\boxed{ 42 } and then \\boxed{17}", true},
	{"aime25", "12", "Answer: 7.5 and Answer: 12", true},
	{"aime25", "7", "Answer: 7.5", false},
	{"aime25", "42", "Answer: ٤٢", true},
	{"aime25", "42", "answer:\u00a042", true},
	{"aime25", "1000", "\\boxed{1000}", false},
	{"aime25", "5", "Answer: 5x", false},
	{"aime25", int64(5), "Answer: 5", true},
	{"aime25", " 005 ", "\\boxed{5}", true},
	{"aime25", "4_2", "\\boxed{42}", true},
	{"aime25", "4.2", "\\boxed{42}", false},
	{"aime25", nil, "\\boxed{42}", false},
	{"aime25", "3", "<|channel|>final<|message|>\\boxed{3}<|return|>", true},
	{"mmlu_pro", "J", "<|channel|>final<|message|>I pick j here", false},
	{"mmlu_pro", "J", "<|channel|>final<|message|>so it is (J) i think", false}, // the last standalone letter: i
}

// byteVocab is a byte-level vocabulary of the 256 bytes (GPT-2's
// bytes_to_unicode) and, after them, the harmony format's markers.
func byteVocab() (vocab []string, specials map[int]string) {
	n := 0
	for b := range 256 {
		printable := b >= '!' && b <= '~' || b >= 0xa1 && b <= 0xac || b >= 0xae
		if printable {
			vocab = append(vocab, string(rune(b)))
		} else {
			vocab = append(vocab, string(rune(256+n)))
			n++
		}
	}
	specials = map[int]string{}
	for i, s := range harmonyMarkers {
		specials[256+i] = s
		vocab = append(vocab, s)
	}
	return vocab, specials
}

var harmonyMarkers = []string{"<|start|>", "<|end|>", "<|channel|>", "<|message|>", "<|return|>"}

// encodeBytes encodes text for byteVocab: the markers as their tokens,
// every other byte as its own.
func encodeBytes(text string) []byte {
	var data []byte
	for len(text) > 0 {
		id := int(text[0])
		size := 1
		for i, m := range harmonyMarkers {
			if strings.HasPrefix(text, m) {
				id, size = 256+i, len(m)
			}
		}
		data = binary.LittleEndian.AppendUint32(data, uint32(id))
		text = text[size:]
	}
	return data
}

// answersFiles are testdata/answers' files: answers as an accuracy set
// and a log, with byteVocab's tokenizer.
func answersFiles(t *testing.T) map[string][]byte {
	t.Helper()
	return answerFiles(t, t.TempDir(), answers)
}

// lcbAnswers are LiveCodeBench samples (and a GPQA one, so that the
// repeats weigh): code that passes, fails, raises, never ends, names no
// problem of the file, none, and a code block with no ground truth.
// Each one's correct is the official script's is_correct (its
// --output-file with --verbose, LiveCodeBench's runner unchanged).
var lcbAnswers = []answer{
	{"livecodebench_v6", "q1", "<|channel|>analysis<|message|>```python\nprint(0)\n```<|end|><|start|>assistant<|channel|>final<|message|>" +
		"```python\nn = int(input())\nprint(n * 2)\n```<|return|>", true}, // the final channel's block
	{"livecodebench_v6", "q2", "Here:\n```py\nclass Solution:\n    def add(self, a, b):\n        return a + b\n```", true}, // a plain block, its tag dropped
	{"livecodebench_v6", "q1", "```python\nn = int(input())\nprint(6)\n```", false},                                        // a private test fails
	{"livecodebench_v6", "q1", "```python\nraise ValueError('no')\n```", false},
	{"livecodebench_v6", "q3", "```python\nwhile True:\n    pass\n```", false}, // past the time limit
	{"livecodebench_v6", "q3", "```python\nif __name__ == '__main__':\n    print('1.000')\n```", true},
	{"livecodebench_v6", "q9", "```python\nprint(1)\n```", false}, // no such question
	{"livecodebench_v6", "q1", "I cannot solve it", false},        // no code block
	{"livecodebench_v6", nil, "```python\nprint(1)\n```", false},  // no ground truth
	{"gpqa_diamond", "C", "<|channel|>final<|message|>**C**<|return|>", true},
}

// lcbProblems are the fixture's LiveCodeBench problems: a stdin one, a
// functional one, one without private tests.
var lcbProblems = map[string]livecodebench.Problem{
	"q1": {Inputs: []string{"3\n", "10\n"}, Outputs: []string{"6\n", "20\n"}},
	"q2": {Inputs: []string{"1\n2", "-5\n5"}, Outputs: []string{"3", "0"}, FnName: "add"},
	"q3": {Inputs: []string{""}, Outputs: []string{"1\n"}},
}

// lcbFiles are testdata/livecodebench's files: lcbAnswers as answersFiles
// writes answers, and the problems file.
func lcbFiles(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, livecodebench.WriteProblems(filepath.Join(dir, problems), lcbProblems, []string{"q1", "q2", "q3"}))
	return answerFiles(t, dir, lcbAnswers)
}

// answerFiles writes answers into dir as an accuracy set and a log, with
// byteVocab's tokenizer, and returns dir's files.
func answerFiles(t *testing.T, dir string, answers []answer) map[string][]byte {
	t.Helper()
	var samples []Sample
	var entries []accuracy.Entry
	for i, a := range answers {
		samples = append(samples, Sample{Tokens: []int64{1, int64(i)}, Dataset: a.dataset, Truth: a.truth})
		entries = append(entries, accuracy.Entry{SeqID: uint64(i), QSLIdx: uint64(i), Data: encodeBytes(a.output)})
	}
	require.NoError(t, WriteSet(filepath.Join(dir, setFile), samples, true))
	vocab, specials := byteVocab()
	require.NoError(t, hftokenizer.WriteByteLevel(filepath.Join(dir, "tokenizer.json"), vocab, specials))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"clean_up_tokenization_spaces": false}`+"\n"), 0o644))
	var b bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&b, entries))
	require.NoError(t, os.WriteFile(filepath.Join(dir, logFile), b.Bytes(), 0o644))
	return readDir(t, dir)
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = b
	}
	return files
}

// TestFixtureFiles: testdata/decoder, testdata/answers and
// testdata/livecodebench are what decoderFiles, answersFiles and
// lcbFiles write (go test -update rewrites them).
func TestFixtureFiles(t *testing.T) {
	t.Parallel()
	for dir, files := range map[string]map[string][]byte{decoderDir: decoderFiles(t), answersDir: answersFiles(t), lcbDir: lcbFiles(t)} {
		if *update {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			for name, b := range files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
			}
		}
		for name, want := range files {
			got, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "%s/%s: rewrite it with go test -update", dir, name)
		}
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
