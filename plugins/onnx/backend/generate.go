package backend

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// generator runs a decoder model greedily, one step per token: the prompt
// and the tokens so far in, the next token the highest logit of the last
// position out. It reports the first token as soon as it is chosen (the
// LoadGen's time to first token), stops at an end-of-sequence token
// (answered as the last token) or at max_new_tokens, and answers the
// generated ids as int32, as the reference LLM SUTs do. The first token
// of a decoder is never an end-of-sequence token (the LLM references'
// min_new_tokens 1); an encoder-decoder's may be (Whisper's reference
// sets no minimum).
//
// A model without a key-value cache is fed the whole sequence at every
// step; one with a cache (kv, Hugging Face optimum's names, kvcache.go)
// the new token and the cache.
type generator struct {
	vocab  int
	lastT  bool // the logits are [N, T, V] (the last position counts), not [N, V]
	maxNew int
	eos    []int64
	in     engine.TensorDesc
	// tokenIn is the token input's index among the model's inputs.
	tokenIn int
	// enc feeds an encoder-decoder's other inputs from the sample, the
	// same at every step (encAt: their indices among the model's
	// inputs); prompt then starts every generation. Both nil for a
	// decoder, whose sample is its prompt.
	enc    *feeds
	encAt  []int
	prompt []int64
	// answer encodes the generated tokens as the response (nil: int32
	// token ids); first is the last generation's first token.
	answer func(dst []byte, tokens []int64) []byte
	// kv is the cache of a decoder that has one (nil: the whole sequence
	// at every step).
	kv *kvDecoder
}

// newGenerator checks the model: one integer input [N, T] fed with
// prompts [T] of token ids, a float32 logits output [N, T, V] or [N, V].
func newGenerator(c config, f feeds, ins, outs []engine.TensorDesc) (*generator, error) {
	if len(ins) != 1 {
		return nil, fmt.Errorf("response %s: the model has %d inputs; want one, the token ids [N, T]", ResponseTokens, len(ins))
	}
	in, out := ins[0], outs[0]
	if (in.DType != engine.Int64 && in.DType != engine.Int32) || len(in.Shape) != 2 || f.layout != stackSamples {
		return nil, fmt.Errorf("response %s: input %v: want token ids [N, T] fed with prompts [T]", ResponseTokens, in)
	}
	g := &generator{maxNew: c.maxNewTokens, eos: c.eos, in: in}
	return g, g.setLogits(ResponseTokens, out)
}

// setLogits checks the logits output.
func (g *generator) setLogits(response string, out engine.TensorDesc) error {
	switch {
	case out.DType == engine.Float32 && len(out.Shape) == 3 && out.Shape[2] > 0:
		g.vocab, g.lastT = int(out.Shape[2]), true
	case out.DType == engine.Float32 && len(out.Shape) == 2 && out.Shape[1] > 0:
		g.vocab = int(out.Shape[1])
	default:
		return fmt.Errorf("response %s: output %v: want float32 logits [N, T, V] or [N, V]", response, out)
	}
	return nil
}

// run generates one sample's tokens.
func (g *generator) run(ctx context.Context, sl *slot, s *sdk.Sample, c sdk.Completer) error {
	var ids []int64
	if g.enc != nil {
		ids = append(ids, g.prompt...)
		if err := g.enc.fill(sl.enc, []sdk.Sample{*s}); err != nil {
			c.Fail(s.ID, fmt.Errorf("onnx: %w", err))
			return nil
		}
		for k, at := range g.encAt {
			sl.in[at] = sl.enc[k]
		}
	} else if len(s.Tensors) > 0 {
		p := s.Tensors[0]
		dt, _ := engineDType(p.DType)
		size := dt.Size()
		for k := 0; k+size <= len(p.Data); k += size {
			ids = append(ids, classValue(dt, p.Data[k:]))
		}
	}
	if len(ids) == 0 {
		c.Fail(s.ID, fmt.Errorf("onnx: sample %d: an empty prompt", s.Index))
		return nil
	}
	step := g.wholeSequence
	if g.kv != nil {
		var err error
		if step, err = g.kv.start(ctx, sl); err != nil {
			return fmt.Errorf("onnx: sample %d: %w", s.Index, err)
		}
	}
	var tokens []int64
	n := 0
	for n < g.maxNew {
		out, err := step(ctx, sl, ids, n)
		if err != nil {
			return fmt.Errorf("onnx: sample %d: step %d: %w", s.Index, n, err)
		}
		logits := out.Data
		if len(logits) < 4*g.vocab || len(logits)%(4*g.vocab) != 0 {
			return fmt.Errorf("onnx: output %s of %d bytes: want logits of %d tokens", out.Name, len(logits), g.vocab)
		}
		if g.lastT {
			logits = logits[len(logits)-4*g.vocab:]
		}
		tok := g.pick(logits, n == 0 && g.enc == nil)
		ids, tokens = append(ids, tok), append(tokens, tok)
		n++
		if n == 1 {
			c.FirstToken(s.ID, g.encode(nil, tokens))
		}
		if slices.Contains(g.eos, tok) {
			break
		}
	}
	if !s.WantOutput {
		c.Complete(s.ID, nil, int64(n))
		return nil
	}
	c.Complete(s.ID, g.encode(nil, tokens), int64(n))
	return nil
}

// stepFunc runs step n of a generation whose tokens so far (prompt
// included) are ids, and returns the logits output.
type stepFunc func(ctx context.Context, sl *slot, ids []int64, n int) (*engine.Tensor, error)

// wholeSequence is the step of a model without a cache: the whole
// sequence in.
func (g *generator) wholeSequence(ctx context.Context, sl *slot, ids []int64, _ int) (*engine.Tensor, error) {
	in := &sl.in[g.tokenIn]
	in.Name, in.DType = g.in.Name, g.in.DType
	in.Data = appendIDs(in.Data[:0], in.DType, ids)
	in.Shape = append(in.Shape[:0], 1, int64(len(ids)))
	if err := sl.sess.Run(ctx, sl.in, sl.out); err != nil {
		return nil, err
	}
	return &sl.out[0], nil
}

// appendIDs appends token ids as dt (int32 or int64) to dst.
func appendIDs(dst []byte, dt engine.DType, ids []int64) []byte {
	for _, id := range ids {
		if dt == engine.Int32 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(id))
		} else {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(id))
		}
	}
	return dst
}

// encode appends the response for tokens to dst: the answer option's, or
// the ids as int32.
func (g *generator) encode(dst []byte, tokens []int64) []byte {
	if g.answer != nil {
		return g.answer(dst, tokens)
	}
	for _, t := range tokens {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(t))
	}
	return dst
}

// pick is the greedy choice: the first highest logit, an end-of-sequence
// token excluded from the first step.
func (g *generator) pick(logits []byte, first bool) int64 {
	best, bestV := int64(-1), float32(0)
	for k := range g.vocab {
		if first && slices.Contains(g.eos, int64(k)) {
			continue
		}
		if v := f32(logits, k); best < 0 || v > bestV {
			best, bestV = int64(k), v
		}
	}
	return max(best, 0)
}
