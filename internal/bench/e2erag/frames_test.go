package e2erag

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

var update = flag.Bool("update", false, "rewrite testdata/frames_dataset.tsv")

// fixtureQueries are FRAMES-like questions: a quote, a tab and a newline
// inside cells, a question with no links and one with three.
var fixtureQueries = []Query{
	{Prompt: `If my future wife has the same first name as the 15th first lady of the United States' mother, what is my future wife's name?`,
		Answer: "Jane Ballou", URLs: []string{"https://en.wikipedia.org/wiki/President_of_the_United_States", "https://en.wikipedia.org/wiki/James_Buchanan"}},
	{Prompt: "Which \"Big Four\" film\tstudio was founded first?\nAnswer in one word.", Answer: "Universal"},
	{Prompt: "How many years apart were the two events?", Answer: "12", URLs: []string{"a", "b", "c"}},
}

func TestFixtureGolden(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), FramesFile)
	require.NoError(t, WriteFrames(p, fixtureQueries, 3))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(filepath.Join("testdata", FramesFile), got, 0o644))
	}
	want, err := os.ReadFile(filepath.Join("testdata", FramesFile))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func TestReaderFixture(t *testing.T) {
	t.Parallel()
	require.True(t, Reader.Is("testdata", dataset.Options{}))
	d, err := Reader.Open("testdata", dataset.Options{})
	require.NoError(t, err)
	f := d.(*Frames)
	require.Equal(t, fixtureQueries, f.Queries)
	shapes, err := f.Shapes(1)
	require.NoError(t, err)
	buf := make([]byte, f.Schema().SampleBytes(shapes))
	require.NoError(t, f.ReadSample(1, buf))
	assert.Equal(t, fixtureQueries[1].Prompt, string(buf))
	assert.Contains(t, dataset.Form(f), "FRAMES questions")
}

func TestReadFramesAsPandas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, FramesFile)
	// A blank line skipped, a quoted cell's doubled quotes, a short
	// row's missing cells empty, CRLF line ends.
	require.NoError(t, os.WriteFile(p, []byte("\tPrompt\tAnswer\twikipedia_link_1\twikipedia_link_11+\r\n0\t\"say \"\"hi\"\" now\"\tA\tu1\r\n\r\n1\tshort\tB\r\n"), 0o644))
	got, err := ReadFrames(p)
	require.NoError(t, err)
	assert.Equal(t, []Query{{Prompt: `say "hi" now`, Answer: "A", URLs: []string{"u1"}}, {Prompt: "short", Answer: "B"}}, got)
	for name, tt := range map[string]struct{ text, want string }{
		"no prompt column": {"\tQuestion\tAnswer\n0\tq\ta\n", "no Prompt and Answer columns"},
		"empty prompt":     {"\tPrompt\tAnswer\n0\tq\ta\n1\t\ta\n", "row 1"},
		"long row":         {"\tPrompt\tAnswer\n0\tq\ta\textra\n", "row 0: " + dataset.ErrCorrupt.Error() + ": 4 cells"},
		"not utf-8":        {"\tPrompt\tAnswer\n0\tq\xff\ta\n", "row 0"},
		"no rows":          {"\tPrompt\tAnswer\n", "no queries"},
		"open quote":       {"\tPrompt\tAnswer\n0\t\"q\ta\n", "row 0"},
		"bare quote":       {"\tPrompt\tAnswer\n0\tsay \"hi\"\ta\n", "row 0"},
	} {
		require.NoError(t, os.WriteFile(p, []byte(tt.text), 0o644))
		_, err := ReadFrames(p)
		require.ErrorIs(t, err, dataset.ErrCorrupt, name)
		assert.Contains(t, err.Error(), FramesFile, name)
		assert.Contains(t, err.Error(), tt.want, name)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	r := AppendResponse(nil, 274)
	n, err := Tokens(r)
	require.NoError(t, err)
	assert.Equal(t, 274, n)
	_, err = Tokens(r[:7])
	require.ErrorIs(t, err, accuracy.ErrLog)
}

func FuzzReadFrames(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", FramesFile))
	require.NoError(f, err)
	f.Add(b)
	f.Add([]byte("\tPrompt\tAnswer\n0\t\"a\"\"b\"\tc\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), FramesFile)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		q, err := ReadFrames(p)
		if err == nil {
			require.NotEmpty(t, q)
			for _, x := range q {
				assert.NotEmpty(t, x.Prompt)
			}
		}
	})
}
