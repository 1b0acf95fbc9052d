package wan

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

// Response is what a response holds, as the reference SUT logs it
// (docs/benchmarks.md says it at length).
const Response = "the video's frames, float32 [frames, height, width, 3] in [0, 1]"

// ResponseBytes is the length of a response of a video of geometry v.
func ResponseBytes(v Video) int { return 4 * 3 * v.Pixels() }

// Frames converts a response to the RGB frames export_to_video hands
// ffmpeg: uint8 [frames, height, width, 3], each value (x × 255) in
// float32 truncated, as numpy's (frame * 255).astype(np.uint8) does; a
// value beyond [0, 255] saturates and NaN is 0 (numpy leaves both
// undefined; the pipeline's frames are in [0, 1]).
//
// # Errors
//
// Wraps accuracy.ErrLog for a response of another length than v's.
func Frames(data []byte, v Video) ([]byte, error) {
	if len(data) != ResponseBytes(v) {
		return nil, fmt.Errorf("%w: a response of %d bytes, want float32 [%d, %d, %d, 3] (%d bytes)", accuracy.ErrLog, len(data), v.Frames, v.Height, v.Width, ResponseBytes(v))
	}
	out := make([]byte, len(data)/4)
	for i := range out {
		x := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])) * 255
		switch {
		case x != x || x <= 0:
			out[i] = 0
		case x >= 255:
			out[i] = 255
		default:
			out[i] = byte(x)
		}
	}
	return out, nil
}

// AppendResponse appends frames (float32 [frames, height, width, 3]) as
// a response.
func AppendResponse(dst []byte, frames []float32) []byte {
	for _, x := range frames {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return dst
}
