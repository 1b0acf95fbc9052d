package wan

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

var update = flag.Bool("update", false, "rewrite testdata")

// The committed fixture: the five prompts with a latent of 2 frames of
// 1×1 (videos of 5 frames of 8×8), an accuracy log of every prompt's
// video (fixtureVideo) and what WriteVideos writes of it.
const (
	fixtureDir  = "testdata/data"
	fixtureLog  = "testdata/mlperf_log_accuracy.json"
	fixtureOut  = "testdata/decoded"
	fixtureSeed = 7
)

// fixtureVideo is sample i's video: channel c of pixel (y, x) of frame f
// is ((i + f + y + x + c) mod 17) / 16, 1.0625 for 16: beyond [0, 1],
// which Frames saturates.
func fixtureVideo(i int, v Video) []float32 {
	out := make([]float32, 0, 3*v.Pixels())
	for f := range v.Frames {
		for y := range v.Height {
			for x := range v.Width {
				for c := range 3 {
					out = append(out, float32((i+f+y+x+c)%17)/16)
				}
			}
		}
	}
	return out
}

func writeFixture(t *testing.T, dir string) {
	t.Helper()
	data := filepath.Join(dir, "data")
	require.NoError(t, WriteData(data, FixturePrompts, 2, 1, 1, fixtureSeed))
	d, err := OpenData(data)
	require.NoError(t, err)
	var entries []accuracy.Entry
	for i := range d.Len() {
		entries = append(entries, accuracy.Entry{SeqID: uint64(i), QSLIdx: uint64(i), Data: AppendResponse(nil, fixtureVideo(i, d.Video))})
	}
	var b bytes.Buffer
	require.NoError(t, accuracy.WriteLog(&b, entries))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mlperf_log_accuracy.json"), b.Bytes(), 0o644))
	_, err = WriteVideos(filepath.Join(dir, "decoded"), bytes.NewReader(b.Bytes()), FixturePrompts, d.Video, []int{3, 1, 9})
	require.NoError(t, err)
}

// TestFixtureGolden: the committed data set, log and decoded frames and
// script are what the code writes (go test -update rewrites them).
func TestFixtureGolden(t *testing.T) {
	t.Parallel()
	if *update {
		for _, p := range []string{fixtureDir, fixtureLog, fixtureOut} {
			require.NoError(t, os.RemoveAll(p))
		}
		writeFixture(t, "testdata")
	}
	dir := t.TempDir()
	writeFixture(t, dir)
	names := []string{"data/" + PromptsFile, "data/" + LatentFile, "mlperf_log_accuracy.json", "decoded/" + EncodeScript}
	for i := range FixturePrompts {
		names = append(names, "decoded/frames/"+string(rune('0'+i))+".rgb")
	}
	for _, name := range names {
		want, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, got, name)
	}
}

func TestReaderFixture(t *testing.T) {
	t.Parallel()
	require.True(t, Reader.Is(fixtureDir, dataset.Options{}))
	require.True(t, Reader.Is(filepath.Join(fixtureDir, PromptsFile), dataset.Options{}))
	assert.False(t, Reader.Is("testdata", dataset.Options{}))
	ds, err := Reader.Open(fixtureDir, dataset.Options{})
	require.NoError(t, err)
	d := ds.(*Prompts)
	assert.Equal(t, len(FixturePrompts), d.Len())
	assert.Equal(t, Video{Frames: 5, Height: 8, Width: 8}, d.Video)
	assert.Equal(t, "wan-2.2 prompts (vbench_prompts.txt) with the fixed latent [1 16 2 1 1] (fixed_latent.pt): videos of 5 frames of 8×8", dataset.Form(d))
	shapes, err := d.Shapes(2)
	require.NoError(t, err)
	assert.Equal(t, [][]int{{len(FixturePrompts[2])}, {16, 2, 1, 1}}, shapes)
	buf := make([]byte, d.Schema().SampleBytes(shapes))
	require.NoError(t, d.ReadSample(2, buf))
	assert.Equal(t, FixturePrompts[2], string(buf[:len(FixturePrompts[2])]))
	lat, _, err := ReadLatent(filepath.Join(fixtureDir, LatentFile))
	require.NoError(t, err)
	assert.Equal(t, AppendResponse(nil, lat.Values), buf[len(FixturePrompts[2]):])
	_, err = d.Shapes(5)
	require.Error(t, err)
}

func TestReadPrompts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, PromptsFile)
	// load_prompts strips each line and drops the empty ones.
	require.NoError(t, os.WriteFile(p, []byte("  a cat \r\n\n\t\nthe bund\n"), 0o644))
	got, err := ReadPrompts(p)
	require.NoError(t, err)
	assert.Equal(t, []string{"a cat", "the bund"}, got)
	for name, tt := range map[string]struct{ text, want string }{
		"not utf-8": {"a cat\nb\xff\n", "vbench_prompts.txt: line 2"},
		"slash":     {"a cat\n\nan a/b test\n", "vbench_prompts.txt: line 3"},
		"empty":     {"\n \n", "no prompts"},
	} {
		require.NoError(t, os.WriteFile(p, []byte(tt.text), 0o644))
		_, err := ReadPrompts(p)
		require.ErrorIs(t, err, dataset.ErrCorrupt, name)
		assert.Contains(t, err.Error(), tt.want, name)
	}
}

func TestOpenDataErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, WriteData(dir, FixturePrompts, 2, 1, 1, 1))
	// A latent of 4 channels is not Wan's.
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, PromptsFile), []byte("a cat\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(bad, LatentFile), []byte("PK not a zip"), 0o644))
	_, err := OpenData(bad)
	require.ErrorIs(t, err, dataset.ErrCorrupt)
	assert.Contains(t, err.Error(), "fixed_latent.pt")
	_, err = VideoOf([]int{1, 4, 2, 8, 8})
	require.Error(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, LatentFile)))
	_, err = OpenData(dir)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestFrames(t *testing.T) {
	t.Parallel()
	v := Video{Frames: 1, Height: 1, Width: 2}
	// (x·255) truncated: 0.5 → 127, 1/255 → 1; beyond [0, 1] saturated.
	got, err := Frames(AppendResponse(nil, []float32{0.5, 1.0 / 255, 1, -0.25, 1.5, 0.999}), v)
	require.NoError(t, err)
	assert.Equal(t, []byte{127, 1, 255, 0, 255, 254}, got)
	_, err = Frames(make([]byte, 23), v)
	require.ErrorIs(t, err, accuracy.ErrLog)
}

func TestWriteVideos(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile(filepath.Join(fixtureOut, EncodeScript))
	require.NoError(t, err)
	// The quoted prompt, the padding to the macro block, the compliance
	// copies of the ids among the logged ones (9 is not).
	assert.Contains(t, string(script), `-i frames/2.rgb -an -vcodec libx264 -pix_fmt yuv420p -crf 25 -vf scale=16:16 -v warning 'vbench_videos/a person'\''s dog running on the beach-0.mp4'`)
	assert.Contains(t, string(script), "cp 'vbench_videos/The bund Shanghai, black and white-0.mp4' videos/3.mp4\ncp 'vbench_videos/A panda")
	assert.NotContains(t, string(script), "videos/9.mp4")
	f, err := os.ReadFile(filepath.Join(fixtureOut, FramesDir, "4.rgb"))
	require.NoError(t, err)
	require.Len(t, f, 5*8*8*3)
	assert.Equal(t, []byte{63, 79, 95}, f[:3]) // (4+c)/16 × 255 truncated
	assert.Equal(t, "sh /out/encode_videos.sh && cd \"$INFERENCE_REPO/text_to_video/wan-2.2-t2v-a14b\" && python3 run_evaluation.py --videos-path /out/vbench_videos --output-path /out/evaluation_results",
		Command("/out", "/out/evaluation_results"))

	log, err := os.ReadFile(fixtureLog)
	require.NoError(t, err)
	// Prompts fewer than the log's samples; a response of another size.
	_, err = WriteVideos(t.TempDir(), bytes.NewReader(log), FixturePrompts[:2], Video{Frames: 5, Height: 8, Width: 8}, nil)
	require.ErrorIs(t, err, accuracy.ErrLog)
	assert.Contains(t, err.Error(), "qsl_idx 2 beyond the 2 prompts")
	_, err = WriteVideos(t.TempDir(), bytes.NewReader(log), FixturePrompts, Video{Frames: 1, Height: 8, Width: 8}, nil)
	require.ErrorIs(t, err, accuracy.ErrLog)
	assert.Contains(t, err.Error(), "entry seq_id 0 (qsl_idx 0)")
}

func TestScorerNeverScores(t *testing.T) {
	t.Parallel()
	f, err := os.Open(fixtureLog)
	require.NoError(t, err)
	defer f.Close()
	s, err := Scorer.Score(f, accuracy.Inputs{})
	require.ErrorIs(t, err, ErrNetworks)
	assert.Nil(t, s)
	assert.Contains(t, err.Error(), "5 responses")
}

func FuzzReadPrompts(f *testing.F) {
	f.Add([]byte("a cat\n\n the bund \n"))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), PromptsFile)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		got, err := ReadPrompts(p)
		for _, s := range got {
			assert.Equal(t, strings.TrimSpace(s), s)
			assert.NotEmpty(t, s)
		}
		if err == nil {
			assert.NotEmpty(t, got)
		}
	})
}

func FuzzFrames(f *testing.F) {
	f.Add(AppendResponse(nil, fixtureVideo(0, Video{Frames: 1, Height: 2, Width: 2})))
	f.Fuzz(func(t *testing.T, b []byte) {
		v := Video{Frames: 1, Height: 2, Width: 2}
		got, err := Frames(b, v)
		if err == nil {
			assert.Len(t, got, 3*v.Pixels())
		}
	})
}
