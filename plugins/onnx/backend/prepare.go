package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/mlperf-host/mlperf-host/sdk"
)

// prepare matches the loaded model's inputs with the data set's tensors
// and sets up the response. A model fed shapes beyond the batch (rows,
// sequences, volumes) is loaded again for any shape.
func (b *Backend) prepare(ctx context.Context, m sdk.Model, data []byte) error {
	cfg := b.cfg
	s := b.all[0].sess
	ins, outs := s.Inputs(), s.Outputs()
	kv, dec, err := b.findCache(cfg)
	if err != nil {
		return err
	}
	fed := ins
	var tokenIn int
	var encAt []int
	switch {
	case kv != nil && dec == nil:
		fed = ins[kv.ids : kv.ids+1]
	case cfg.response == ResponseTranscript && dec == nil:
		if tokenIn, fed, encAt, err = transcriptInputs(ins, m.Inputs); err != nil {
			return err
		}
	}
	f, err := newFeeds(fed, m.Inputs, cfg.response == ResponseSegmentation)
	if err != nil {
		return err
	}
	if cfg.response != ResponseClass && (cfg.classOutput != "" || cfg.classOffsetSet) {
		return fmt.Errorf("options %s and %s need %s=%s", OptClassOutput, OptClassOffset, OptResponse, ResponseClass)
	}
	b.feeds = f
	switch cfg.response {
	case ResponseOutputs:
		b.resp = outputsResponder{}
	case ResponseClass:
		b.resp, err = newClassResponder(cfg, outs)
	case ResponseSQuAD:
		b.resp, err = newSQuADResponder(outs)
	case ResponseDetections:
		var r detectionsResponder
		if r, err = newDetectionsResponder(cfg, ins, outs); err == nil && detectionsNeedBatchOne(r, outs) {
			cfg.batch = 1
		}
		b.resp = r
	case ResponseYOLO:
		b.resp, err = newYOLOResponder(outs)
		if len(ins[0].Shape) > 0 && ins[0].Shape[0] == 1 {
			cfg.batch = 1 // the export's images [1, 3, 640, 640]
		}
	case ResponseDLRM:
		b.resp, err = newDLRMResponder(cfg, outs, m.Inputs)
	case ResponseDLRMv3:
		b.resp, err = newDLRMv3Responder(outs, m.Inputs, m.Run.Mode)
	case ResponseSDXL:
		b.resp, err = newSDXLResponder(outs)
	case ResponseSegmentation:
		b.seg, err = newSegmenter(f, ins, outs)
	case ResponseTokens:
		if kv != nil {
			b.gen, err = newCachedGenerator(cfg, f, kv, ins, outs)
		} else {
			b.gen, err = newGenerator(cfg, f, ins, outs)
		}
	case ResponseTranscript:
		if dec != nil {
			b.gen, err = newCachedTranscriber(cfg, f, kv, outs, dec.Inputs(), dec.Outputs())
		} else {
			b.gen, err = newTranscriber(cfg, f, ins, outs, tokenIn, encAt)
		}
	default:
		err = fmt.Errorf("option %s=%q: want one of %s", OptResponse, cfg.response, strings.Join(responses(), ", "))
	}
	if err != nil {
		return err
	}
	if f.in[0].src < 0 && f.in[0].desc.Shape[0] == 1 {
		cfg.batch = 1 // a model exported for batch 1 only
	}
	cfg.anyShape = f.freeInner() || b.seg != nil || b.gen != nil
	if cfg.anyShape && !b.cfg.anyShape {
		b.closeSessions()
		if err := b.loadSessions(ctx, cfg, data); err != nil {
			return err
		}
	}
	b.cfg = cfg
	return nil
}
