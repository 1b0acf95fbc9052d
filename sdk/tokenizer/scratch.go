package tokenizer

// scratch is one Encode call's reusable memory, pooled per tokenizer.
type scratch struct {
	pieces, norm, words []piece
	preA, preB          []piece
	spans               []span
	stack               []thread
	syms                []symbol
	heap                []candidate
}

// maxPooled caps what a scratch keeps for the next call (entries per
// slice), so one huge input does not pin its memory.
const maxPooled = 1 << 16

func (t *Tokenizer) getScratch() *scratch { return t.scratch.Get().(*scratch) }

func (t *Tokenizer) putScratch(sc *scratch) {
	if cap(sc.pieces) > maxPooled || cap(sc.words) > maxPooled || cap(sc.syms) > maxPooled ||
		cap(sc.heap) > maxPooled || cap(sc.stack) > maxPooled || cap(sc.preA) > maxPooled ||
		cap(sc.preB) > maxPooled || cap(sc.spans) > maxPooled || cap(sc.norm) > maxPooled {
		return
	}
	t.scratch.Put(sc)
}
