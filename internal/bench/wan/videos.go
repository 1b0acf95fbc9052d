package wan

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

// The directories WriteVideos writes beside an accuracy log, and its
// script.
const (
	// FramesDir holds each logged video's frames, <qsl_idx>.rgb: raw
	// rgb24, the bytes export_to_video pipes into ffmpeg.
	FramesDir = "frames"
	// VBenchDir is where the script encodes the videos under the names
	// VBench reads (VideoName), run_evaluation.py's --videos-path.
	VBenchDir = "vbench_videos"
	// VideosDir is the accuracy directory's videos/ the submission
	// checker wants: the round's compliance videos as <qsl_idx>.mp4.
	VideosDir = "videos"
	// EncodeScript is the script of ffmpeg commands.
	EncodeScript = "encode_videos.sh"
)

// ErrNetworks is returned by the scorer: VBench's metric networks do
// not run in mlperf-host.
var ErrNetworks = errors.New("VBench's networks (DINO, RAFT, AMT, CLIP, Tag2Text, ...) do not run in mlperf-host")

// VideoName is the file name VBench reads prompt's video under, as
// run_inference.py saves it: "<prompt>-0.mp4" (iteration 0).
func VideoName(prompt string) string { return prompt + "-0.mp4" }

// Encode is the ffmpeg command line export_to_video runs (imageio's
// ffmpeg writer at quality 5: libx264, yuv420p, crf 25; the frame size
// padded up to a multiple of 16, its macro block) with the raw frames
// read from raw instead of a pipe.
func Encode(v Video, raw, mp4 string) []string {
	cmd := []string{"ffmpeg", "-y", "-f", "rawvideo", "-vcodec", "rawvideo", "-s", fmt.Sprintf("%dx%d", v.Width, v.Height),
		"-pix_fmt", "rgb24", "-r", fmt.Sprintf("%.2f", float64(FPS)), "-i", raw, "-an", "-vcodec", "libx264", "-pix_fmt", "yuv420p", "-crf", "25"}
	if w, h := up16(v.Width), up16(v.Height); w != v.Width || h != v.Height {
		cmd = append(cmd, "-vf", fmt.Sprintf("scale=%d:%d", w, h))
	}
	return append(cmd, "-v", "warning", mp4)
}

func up16(n int) int { return (n + 15) / 16 * 16 }

// Written is what WriteVideos wrote.
type Written struct {
	// Indices are the logged samples, ascending.
	Indices []int
	// Compliance are the round's compliance ids among them.
	Compliance []int
}

// WriteVideos writes each video of an accuracy log into dir: its frames
// as FramesDir/<qsl_idx>.rgb (Frames) and, in EncodeScript, the
// commands that encode them into VBenchDir/VideoName(prompt) as
// export_to_video does and copy the round's compliance videos (ids,
// qsl indices) into VideosDir/<id>.mp4. A sample logged twice keeps its
// last response.
//
// # Errors
//
// Names the entry of a response of the wrong length or of a qsl_idx
// beyond the prompts, and refuses a log without responses.
func WriteVideos(dir string, log io.Reader, prompts []string, v Video, ids []int) (Written, error) {
	var w Written
	if err := os.MkdirAll(filepath.Join(dir, FramesDir), 0o755); err != nil {
		return w, err
	}
	seen := map[int]bool{}
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(prompts)) {
			return fmt.Errorf("entry seq_id %d: %w: qsl_idx %d beyond the %d prompts", e.SeqID, accuracy.ErrLog, e.QSLIdx, len(prompts))
		}
		frames, err := Frames(e.Data, v)
		if err != nil {
			return fmt.Errorf("entry seq_id %d (qsl_idx %d): %w", e.SeqID, e.QSLIdx, err)
		}
		i := int(e.QSLIdx)
		if !seen[i] {
			seen[i] = true
			w.Indices = append(w.Indices, i)
		}
		return os.WriteFile(filepath.Join(dir, FramesDir, strconv.Itoa(i)+".rgb"), frames, 0o644)
	})
	if err != nil {
		return w, err
	}
	if len(w.Indices) == 0 {
		return w, fmt.Errorf("%w: no responses", accuracy.ErrLog)
	}
	slices.Sort(w.Indices)
	for _, id := range ids {
		if seen[id] {
			w.Compliance = append(w.Compliance, id)
		}
	}
	return w, os.WriteFile(filepath.Join(dir, EncodeScript), []byte(Script(w, prompts, v)), 0o755)
}

// Script is EncodeScript's text: run from anywhere, it encodes the
// frames beside it.
func Script(w Written, prompts []string, v Video) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# The videos of an accuracy log, encoded as the wan-2.2 reference's export_to_video does\n" +
		"# (imageio-ffmpeg: libx264, yuv420p, crf 25, " + strconv.Itoa(FPS) + " fps), from the frames mlperf-host decoded.\nset -e\ncd \"$(dirname \"$0\")\"\n")
	fmt.Fprintf(&b, "mkdir -p %s %s\n", VBenchDir, VideosDir)
	for _, i := range w.Indices {
		b.WriteString(shellJoin(Encode(v, FramesDir+"/"+strconv.Itoa(i)+".rgb", VBenchDir+"/"+VideoName(prompts[i]))) + "\n")
	}
	for _, id := range w.Compliance {
		fmt.Fprintf(&b, "cp %s %s/%d.mp4\n", shellQuote(VBenchDir+"/"+VideoName(prompts[id])), VideosDir, id)
	}
	return b.String()
}

// Command is the official evaluation on the encoded videos, run in a
// checkout of mlcommons/inference ($INFERENCE_REPO) with VBench's
// networks: run_evaluation.py (VBench's six dimensions) writing into
// results.
func Command(dir, results string) string {
	return shellJoin([]string{"sh", filepath.Join(dir, EncodeScript)}) + " && cd \"$INFERENCE_REPO/text_to_video/wan-2.2-t2v-a14b\" && " +
		shellJoin([]string{"python3", "run_evaluation.py", "--videos-path", filepath.Join(dir, VBenchDir), "--output-path", results})
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for sh where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Scorer is the official evaluation's place in the registry: VBench's
// networks are not here, so it checks every response of the log and
// returns ErrNetworks; `mlperf-host accuracy` writes the videos and
// prints the command (WriteVideos, Command).
var Scorer = accuracy.Scorer{
	Name:     "vbench",
	Script:   "text_to_video/wan-2.2-t2v-a14b/run_evaluation.py",
	Networks: "VBench's networks",
	Score: func(log io.Reader, _ accuracy.Inputs) (accuracy.Score, error) {
		n := 0
		err := accuracy.ReadLog(log, func(accuracy.Entry) error { n++; return nil })
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%d responses: %w: `mlperf-host accuracy` writes the videos and prints the official evaluation's command", n, ErrNetworks)
	},
}
