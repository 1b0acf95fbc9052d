package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/engine"
)

// The names of a decoder with a key-value cache, as Hugging Face optimum
// exports one (a decoder-only LLM's model.onnx; Whisper's
// decoder_model_merged.onnx). A model with a past input is generated
// with its cache; docs/onnx.md states the contract.
const (
	kvInputIDs      = "input_ids"
	kvAttentionMask = "attention_mask"
	kvPositionIDs   = "position_ids"
	kvEncoderStates = "encoder_hidden_states"
	kvUseCache      = "use_cache_branch"
	kvLogits        = "logits"
	kvPastPrefix    = "past_key_values."
	kvPresentPrefix = "present."
)

// kvDecoder is where a cached decoder's inputs and outputs are, by index.
type kvDecoder struct {
	ids, mask, pos int // mask and pos -1 when the model has none
	// hidden is encoder_hidden_states (-1 for a decoder-only model),
	// useCache use_cache_branch (-1 when absent).
	hidden, useCache int
	logits           int
	past             []kvPair
	idsType          engine.DType
	// encOut is the encoder output fed as hidden: the encoder session's
	// last_hidden_state, else its first output (two-graph models only).
	encOut int
}

// kvPair is one past input and the present output that feeds it at the
// next step.
type kvPair struct {
	in, out int
	// encoder: a cross-attention past (".encoder."): the first step's
	// present is kept, as the later steps' are placeholders in optimum's
	// merged decoder.
	encoder bool
	// empty is the past's shape at the first step: [1, heads, 0, head size].
	empty []int64
}

// findKV returns the cache layout of a model with past_key_values.*
// inputs, nil for a model without.
func findKV(ins, outs []engine.TensorDesc) (*kvDecoder, error) {
	k := &kvDecoder{ids: -1, mask: -1, pos: -1, hidden: -1, useCache: -1, logits: -1}
	present := map[string]int{}
	for i, o := range outs {
		if o.Name == kvLogits {
			k.logits = i
		}
		if suffix, ok := strings.CutPrefix(o.Name, kvPresentPrefix); ok {
			present[suffix] = i
		}
	}
	isInt := func(d engine.TensorDesc) bool {
		return (d.DType == engine.Int64 || d.DType == engine.Int32) && len(d.Shape) == 2
	}
	for i, in := range ins {
		var ok bool
		switch {
		case in.Name == kvInputIDs:
			k.ids, k.idsType, ok = i, in.DType, isInt(in)
		case in.Name == kvAttentionMask:
			k.mask, ok = i, isInt(in) && in.DType == engine.Int64
		case in.Name == kvPositionIDs:
			k.pos, ok = i, isInt(in) && in.DType == engine.Int64
		case in.Name == kvEncoderStates:
			k.hidden, ok = i, in.DType == engine.Float32
		case in.Name == kvUseCache:
			k.useCache, ok = i, in.DType == engine.Bool && engine.Elements(in.Shape) == 1
		case strings.HasPrefix(in.Name, kvPastPrefix):
			suffix := strings.TrimPrefix(in.Name, kvPastPrefix)
			out, has := present[suffix]
			if !has {
				return nil, fmt.Errorf("input %s: the model has no output %s%s to feed it", in.Name, kvPresentPrefix, suffix)
			}
			s := in.Shape
			if in.DType != engine.Float32 || len(s) != 4 || s[1] <= 0 || s[3] <= 0 {
				return nil, fmt.Errorf("input %v: want a float32 cache [batch, heads, past, head size] with fixed heads and head size", in)
			}
			k.past = append(k.past, kvPair{in: i, out: out, encoder: strings.Contains(suffix, ".encoder."),
				empty: []int64{1, s[1], 0, s[3]}})
			ok = true
		default:
			return nil, fmt.Errorf("input %s: a decoder with a key-value cache takes %s, %s, %s, %s, %s and %s* (Hugging Face optimum's names)",
				in.Name, kvInputIDs, kvAttentionMask, kvPositionIDs, kvEncoderStates, kvUseCache, kvPastPrefix)
		}
		if !ok {
			return nil, fmt.Errorf("input %v: not the type or shape of optimum's %s", in, in.Name)
		}
	}
	switch {
	case len(k.past) == 0:
		return nil, nil
	case k.ids < 0:
		return nil, fmt.Errorf("a decoder with a key-value cache (inputs %s*) needs an input %s [batch, tokens]", kvPastPrefix, kvInputIDs)
	case k.logits < 0:
		return nil, fmt.Errorf("a decoder with a key-value cache (inputs %s*) needs an output %s", kvPastPrefix, kvLogits)
	}
	return k, nil
}

// start returns the step of one generation on slot sl: for a two-graph
// model it runs the encoder on the sample (sl.enc) first and steps the
// decoder session, else it steps sl's.
func (k *kvDecoder) start(ctx context.Context, sl *slot) (stepFunc, error) {
	if sl.dec == nil {
		return k.step, nil
	}
	if err := sl.sess.Run(ctx, sl.enc, sl.out); err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	return func(ctx context.Context, _ *slot, ids []int64, n int) (*engine.Tensor, error) {
		k.feedHidden(sl)
		return k.step(ctx, sl.dec, ids, n)
	}, nil
}

// feedHidden feeds the encoder's output on sl to its decoder session.
func (k *kvDecoder) feedHidden(sl *slot) {
	h := &sl.dec.in[k.hidden]
	*h = sl.out[k.encOut]
	h.Name = sl.dec.sess.Inputs()[k.hidden].Name
}

// step runs the decoder on d: at step 0 the whole prompt with an empty
// cache (and use_cache_branch false), after it the last token with the
// previous step's present as the past; the attention mask is ones over
// the past and the new tokens, the positions those of the new tokens.
func (k *kvDecoder) step(ctx context.Context, d *slot, ids []int64, n int) (*engine.Tensor, error) {
	descs := d.sess.Inputs()
	fed := ids
	if n > 0 {
		fed = ids[len(ids)-1:]
	}
	past := int64(len(ids) - len(fed))
	set := func(at int, dt engine.DType, shape ...int64) *engine.Tensor {
		t := &d.in[at]
		t.Name, t.DType, t.Shape, t.Data = descs[at].Name, dt, append(t.Shape[:0], shape...), t.Data[:0]
		return t
	}
	t := set(k.ids, k.idsType, 1, int64(len(fed)))
	t.Data = appendIDs(t.Data, k.idsType, fed)
	if k.mask >= 0 {
		t := set(k.mask, engine.Int64, 1, int64(len(ids)))
		for range ids {
			t.Data = appendIDs(t.Data, engine.Int64, []int64{1})
		}
	}
	if k.pos >= 0 {
		t := set(k.pos, engine.Int64, 1, int64(len(fed)))
		for p := range int64(len(fed)) {
			t.Data = appendIDs(t.Data, engine.Int64, []int64{past + p})
		}
	}
	if k.useCache >= 0 {
		t := set(k.useCache, engine.Bool, descs[k.useCache].Shape...)
		t.Data = append(t.Data, byte(min(n, 1)))
	}
	if n == 0 {
		for _, p := range k.past {
			set(p.in, engine.Float32, p.empty...)
		}
	}
	if err := d.sess.Run(ctx, d.in, d.out); err != nil {
		return nil, err
	}
	// The present becomes the next step's past: the buffers swap, so that
	// the next Run writes its present into this step's past.
	for _, p := range k.past {
		if p.encoder && n > 0 {
			continue
		}
		in, out := &d.in[p.in], &d.out[p.out]
		in.Data, out.Data = out.Data, in.Data
		in.Shape, out.Shape = out.Shape, in.Shape
	}
	return &d.out[k.logits], nil
}

// newCachedGenerator is response=tokens with a decoder-only model that
// has a key-value cache: the data set's prompt feeds input_ids.
func newCachedGenerator(c config, f feeds, k *kvDecoder, ins, outs []engine.TensorDesc) (*generator, error) {
	if k.hidden >= 0 {
		return nil, fmt.Errorf("response %s: input %s: an encoder-decoder's decoder; want a decoder-only model", ResponseTokens, kvEncoderStates)
	}
	if f.layout != stackSamples {
		return nil, fmt.Errorf("response %s: input %s: want token ids [N, T] fed with prompts [T]", ResponseTokens, kvInputIDs)
	}
	g := &generator{maxNew: c.maxNewTokens, eos: c.eos, in: ins[k.ids], kv: k}
	return g, g.setLogits(ResponseTokens, outs[k.logits])
}

// newCachedTranscriber is response=transcript with a model of two graphs
// (modeldir.go): the sample feeds the encoder (encIns, encOuts) once, its
// last_hidden_state (else first output) the decoder's
// encoder_hidden_states at every step.
func newCachedTranscriber(c config, enc feeds, k *kvDecoder, encOuts, decIns, decOuts []engine.TensorDesc) (*generator, error) {
	if k.hidden < 0 {
		return nil, fmt.Errorf("response %s: the decoder has no input %s", ResponseTranscript, kvEncoderStates)
	}
	g, err := newTranscription(c, enc)
	if err != nil {
		return nil, err
	}
	for i, o := range encOuts {
		if o.Name == "last_hidden_state" {
			k.encOut = i
		}
	}
	g.in, g.kv = decIns[k.ids], k
	return g, g.setLogits(ResponseTranscript, decOuts[k.logits])
}

// warmCache runs one cached step of token 0 on every slot's decoder
// (after the encoder's warm-up run, for a two-graph model), so that
// shapes of one token and a cache exist before the timed run.
func (k *kvDecoder) warmCache(ctx context.Context, sl *slot) error {
	d := sl
	if sl.dec != nil {
		d = sl.dec
		k.feedHidden(sl)
	}
	if _, err := k.step(ctx, d, []int64{0}, 0); err != nil {
		return err
	}
	_, err := k.step(ctx, d, []int64{0, 0}, 1)
	return err
}

// findCache returns the key-value cache of the loaded model's decoder
// and, for a model of two graphs, the decoder's session; nil when the
// model generates without a cache (or does not generate).
func (b *Backend) findCache(cfg config) (*kvDecoder, engine.Session, error) {
	sl := b.all[0]
	if sl.dec == nil {
		if cfg.response != ResponseTokens {
			return nil, nil, nil
		}
		kv, err := findKV(sl.sess.Inputs(), sl.sess.Outputs())
		if err != nil {
			return nil, nil, fmt.Errorf("response %s: %w", ResponseTokens, err)
		}
		return kv, nil, nil
	}
	if cfg.response != ResponseTranscript {
		return nil, nil, fmt.Errorf("a model of an encoder and a decoder (%s, %s) needs %s=%s", encoderFile, decoderFile, OptResponse, ResponseTranscript)
	}
	kv, err := findKV(sl.dec.sess.Inputs(), sl.dec.sess.Outputs())
	if err == nil && kv == nil {
		err = fmt.Errorf("no input %s*: want a decoder with a key-value cache", kvPastPrefix)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", decoderFile, err)
	}
	return kv, sl.dec.sess, nil
}
