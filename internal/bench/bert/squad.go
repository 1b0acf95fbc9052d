package bert

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
	"github.com/mlperf-host/mlperf-host/internal/benchmarks"
)

// Response is what a response holds, as the official script reads it
// (docs/benchmarks.md says it at length).
const Response = "the feature's start and end logits, [seq][2] float32 (start, end interleaved), seq ≤ 384"

// The reference's feature parameters (accuracy-squad.py, create_squad_data.py)
// and post-processing ones (write_predictions' n_best_size, max_answer_length).
const (
	squadMaxSeq      = 384
	squadMaxQuery    = 64
	squadDocStride   = 128
	squadNBest       = 20
	squadMaxAnswer   = 30
	squadPadLogit    = -10000.0
	squadNoAnswerTxt = "empty"
)

// SQuADResult is the score of a BERT accuracy log, as accuracy-squad.py
// (its post-processing, then evaluate_v1.1.py) computes it.
type SQuADResult struct {
	// ExactMatch and F1 are in percent over every question.
	ExactMatch, F1 float64
}

// Text is evaluate_v1.1.py's line, Python's json.dumps of its dict:
// {"exact_match": 83.68022705771051, "f1": 90.87081895814865}.
func (r SQuADResult) Text() string {
	return fmt.Sprintf(`{"exact_match": %s, "f1": %s}`, py.Float(r.ExactMatch), py.Float(r.F1))
}

// Value implements accuracy.Score.
func (r SQuADResult) Value(m benchmarks.Metric) (float64, bool) { return r.F1, m == benchmarks.F1 }

type squadQA struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Answers  []struct {
		Text string `json:"text"`
	} `json:"answers"`
}

type squadFile struct {
	Data []struct {
		Paragraphs []struct {
			Context string    `json:"context"`
			QAs     []squadQA `json:"qas"`
		} `json:"paragraphs"`
	} `json:"data"`
}

type squadExample struct {
	qa        *squadQA
	docTokens []string
	features  []int
}

type squadFeature struct {
	example    int
	tokens     []string
	tokToOrig  map[int]int
	maxContext map[int]bool
}

// SQuAD is a SQuAD v1.1 dev set cut into BERT features as the reference
// does: qsl_idx i is feature i.
type SQuAD struct {
	file     squadFile
	examples []squadExample
	features []squadFeature
}

// Features returns the number of features, the data set's sample count.
func (s *SQuAD) Features() int { return len(s.features) }

// ReadSQuAD reads dev-v1.1.json and cuts it into features with vocab as
// accuracy-squad.py does (sequence 384, query 64, stride 128).
//
// # Errors
//
// Malformed JSON.
func ReadSQuAD(dev io.Reader, vocab Vocab) (*SQuAD, error) {
	s := &SQuAD{}
	if err := json.NewDecoder(dev).Decode(&s.file); err != nil {
		return nil, fmt.Errorf("squad dev set: %w", err)
	}
	for a := range s.file.Data {
		for p := range s.file.Data[a].Paragraphs {
			par := &s.file.Data[a].Paragraphs[p]
			doc := squadDocTokens(par.Context)
			for q := range par.QAs {
				s.examples = append(s.examples, squadExample{qa: &par.QAs[q], docTokens: doc})
			}
		}
	}
	for i := range s.examples {
		s.addFeatures(i, vocab)
	}
	return s, nil
}

// squadDocTokens splits a context on the reference's whitespace.
func squadDocTokens(text string) []string {
	var toks []string
	prevSpace := true
	for _, r := range text {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == 0x202F {
			prevSpace = true
			continue
		}
		if prevSpace {
			toks = append(toks, string(r))
		} else {
			toks[len(toks)-1] += string(r)
		}
		prevSpace = false
	}
	return toks
}

func (s *SQuAD) addFeatures(ei int, vocab Vocab) {
	ex := &s.examples[ei]
	query := vocab.Tokenize(ex.qa.Question)
	query = query[:min(len(query), squadMaxQuery)]
	var tokToOrig []int
	var all []string
	for i, tok := range ex.docTokens {
		for _, sub := range vocab.Tokenize(tok) {
			tokToOrig = append(tokToOrig, i)
			all = append(all, sub)
		}
	}
	maxDoc := squadMaxSeq - len(query) - 3
	type span struct{ start, length int }
	var spans []span
	for start := 0; start < len(all); {
		length := min(len(all)-start, maxDoc)
		spans = append(spans, span{start, length})
		if start+length == len(all) {
			break
		}
		start += min(length, squadDocStride)
	}
	isMax := func(cur, pos int) bool {
		best, bestIdx := -1.0, -1
		for i, sp := range spans {
			end := sp.start + sp.length - 1
			if pos < sp.start || pos > end {
				continue
			}
			score := float64(min(pos-sp.start, end-pos)) + 0.01*float64(sp.length)
			if bestIdx < 0 || score > best {
				best, bestIdx = score, i
			}
		}
		return cur == bestIdx
	}
	for si, sp := range spans {
		f := squadFeature{example: ei, tokToOrig: map[int]int{}, maxContext: map[int]bool{}}
		f.tokens = append(append(append(f.tokens, "[CLS]"), query...), "[SEP]")
		for i := range sp.length {
			at := sp.start + i
			f.tokToOrig[len(f.tokens)] = tokToOrig[at]
			f.maxContext[len(f.tokens)] = isMax(si, at)
			f.tokens = append(f.tokens, all[at])
		}
		f.tokens = append(f.tokens, "[SEP]")
		ex.features = append(ex.features, len(s.features))
		s.features = append(s.features, f)
	}
}

// SQuADDtypes lists the response types Score reads.
func SQuADDtypes() []string { return []string{"float32", "float16"} }

// Score scores a BERT accuracy log as accuracy-squad.py does: feature
// qsl_idx's response is its start and end logits, [seq][2] of dtype
// (float32 by default; a shorter sequence is padded with -10000); the 20
// best starts and ends make the candidate answers, the best valid one
// (at most 30 tokens, in the document, in its max-context span) is
// projected back onto the original text, and evaluate_v1.1.py's exact
// match and F1 are taken over every question. A question without
// results answers "empty"; a later entry for a feature replaces an
// earlier one.
//
// # Errors
//
// Wraps [accuracy.ErrLog] for a malformed log, an unknown dtype, a qsl_idx without
// a feature, or a response that is not whole [start, end] pairs of at
// most 384.
func (s *SQuAD) Score(log io.Reader, dtype string) (SQuADResult, error) {
	var size int
	switch dtype {
	case "", "float32":
		size = 4
	case "float16":
		size = 2
	default:
		return SQuADResult{}, fmt.Errorf("%w: response dtype %q: want one of %s", accuracy.ErrLog, dtype, strings.Join(SQuADDtypes(), ", "))
	}
	type logits struct{ start, end []float64 }
	results := map[int]logits{}
	err := accuracy.ReadLog(log, func(e accuracy.Entry) error {
		if e.QSLIdx >= uint64(len(s.features)) {
			return fmt.Errorf("%w: qsl_idx %d has no feature (the data set has %d)", accuracy.ErrLog, e.QSLIdx, len(s.features))
		}
		n := len(e.Data) / (2 * size)
		if len(e.Data)%(2*size) != 0 || n > squadMaxSeq {
			return fmt.Errorf("%w: qsl_idx %d: %d bytes, want at most %d [start, end] pairs of %d-byte logits", accuracy.ErrLog, e.QSLIdx, len(e.Data), squadMaxSeq, size)
		}
		l := logits{make([]float64, squadMaxSeq), make([]float64, squadMaxSeq)}
		for i := range squadMaxSeq {
			if i < n {
				l.start[i] = halfOrSingle(e.Data[2*size*i:], size)
				l.end[i] = halfOrSingle(e.Data[2*size*i+size:], size)
			} else {
				l.start[i], l.end[i] = squadPadLogit, squadPadLogit
			}
		}
		results[int(e.QSLIdx)] = l
		return nil
	})
	if err != nil {
		return SQuADResult{}, err
	}
	preds := map[string]string{}
	for ei := range s.examples {
		ex := &s.examples[ei]
		type prelim struct {
			feature, start, end int
			sl, el              float64
		}
		var cands []prelim
		for _, fi := range ex.features {
			r, ok := results[fi]
			if !ok {
				continue
			}
			f := &s.features[fi]
			for _, st := range bestIndexes(r.start) {
				for _, en := range bestIndexes(r.end) {
					_, okS := f.tokToOrig[st]
					_, okE := f.tokToOrig[en]
					if st >= len(f.tokens) || en >= len(f.tokens) || !okS || !okE || !f.maxContext[st] ||
						en < st || en-st+1 > squadMaxAnswer {
						continue
					}
					cands = append(cands, prelim{fi, st, en, r.start[st], r.end[en]})
				}
			}
		}
		slices.SortStableFunc(cands, py.Descending(func(c prelim) float64 { return c.sl + c.el }))
		// The prediction is the best candidate's text (the first of the
		// reference's n-best list, which only dedupes after it).
		best := squadNoAnswerTxt
		if len(cands) > 0 {
			c := cands[0]
			f := &s.features[c.feature]
			tok := strings.Join(f.tokens[c.start:c.end+1], " ")
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, " ##", ""), "##", "")
			tok = strings.Join(py.Fields(tok), " ")
			best = squadFinalText(tok, strings.Join(ex.docTokens[f.tokToOrig[c.start]:f.tokToOrig[c.end]+1], " "))
		}
		preds[ex.qa.ID] = best
	}
	return s.evaluate(preds), nil
}

// halfOrSingle reads a little-endian float16 or float32.
func halfOrSingle(b []byte, size int) float64 {
	if size == 4 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	}
	h := binary.LittleEndian.Uint16(b)
	sign, exp, frac := float64(1), int(h>>10&0x1f), float64(h&0x3ff)
	if h&0x8000 != 0 {
		sign = -1
	}
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// bestIndexes returns the indexes of the 20 highest logits, highest
// first, ties in index order (Python's stable sort, reversed).
func bestIndexes(l []float64) []int {
	idx := make([]int, len(l))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, py.Descending(func(i int) float64 { return l[i] }))
	return idx[:min(len(idx), squadNBest)]
}

// squadFinalText projects the WordPiece answer pred back onto the
// document's text orig (the reference's get_final_text): both are
// compared without spaces, character for character, and the original
// span is returned; when they do not align, orig whole.
func squadFinalText(pred, orig string) string {
	tokText := []rune(strings.Join(bertBasicTokenize(orig), " "))
	p := []rune(pred)
	start := runeIndex(tokText, p)
	if start < 0 {
		return orig
	}
	end := start + len(p) - 1
	o := []rune(orig)
	strip := func(rs []rune) ([]rune, []int) {
		var ns []rune
		var toS []int
		for i, r := range rs {
			if r != ' ' {
				toS = append(toS, i)
				ns = append(ns, r)
			}
		}
		return ns, toS
	}
	origNS, origMap := strip(o)
	tokNS, tokMap := strip(tokText)
	if len(origNS) != len(tokNS) {
		return orig
	}
	tokToNS := map[int]int{}
	for i, ti := range tokMap {
		tokToNS[ti] = i
	}
	ns, ok := tokToNS[start]
	if !ok || ns >= len(origMap) {
		return orig
	}
	os := origMap[ns]
	ne, ok := tokToNS[end]
	if !ok || ne >= len(origMap) {
		return orig
	}
	return string(o[os : origMap[ne]+1])
}

// runeIndex is Python's str.find on code points.
func runeIndex(s, sub []rune) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// evaluate is evaluate_v1.1.py over every question of the file.
func (s *SQuAD) evaluate(preds map[string]string) SQuADResult {
	exact, f1, total := 0, 0.0, 0
	for _, a := range s.file.Data {
		for _, p := range a.Paragraphs {
			for _, qa := range p.QAs {
				total++
				pred, ok := preds[qa.ID]
				if !ok {
					continue
				}
				bestEM, bestF1 := false, 0.0
				for i, ans := range qa.Answers {
					em := squadNormalize(pred) == squadNormalize(ans.Text)
					f := squadF1(pred, ans.Text)
					if i == 0 || f > bestF1 {
						bestF1 = f
					}
					bestEM = bestEM || em
				}
				if bestEM {
					exact++
				}
				f1 += bestF1
			}
		}
	}
	if total == 0 {
		return SQuADResult{}
	}
	return SQuADResult{ExactMatch: 100.0 * float64(exact) / float64(total), F1: 100.0 * f1 / float64(total)}
}

// squadNormalize is evaluate_v1.1.py's normalize_answer: lower case, no
// ASCII punctuation, no article words, single spaces.
func squadNormalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r) {
			b.WriteRune(r)
		}
	}
	// \b(a|an|the)\b: a maximal run of word characters that is an article.
	rs := []rune(b.String())
	var out strings.Builder
	for i := 0; i < len(rs); {
		if !pyWord(rs[i]) {
			out.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && pyWord(rs[j]) {
			j++
		}
		switch w := string(rs[i:j]); w {
		case "a", "an", "the":
			out.WriteByte(' ')
		default:
			out.WriteString(w)
		}
		i = j
	}
	return strings.Join(py.Fields(out.String()), " ")
}

// pyWord is a character of Python's \w in a str pattern.
func pyWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// squadF1 is evaluate_v1.1.py's f1_score: token overlap of the
// normalized answers.
func squadF1(pred, truth string) float64 {
	p, t := py.Fields(squadNormalize(pred)), py.Fields(squadNormalize(truth))
	counts := map[string]int{}
	for _, w := range t {
		counts[w]++
	}
	same := 0
	for _, w := range p {
		if counts[w] > 0 {
			counts[w]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := 1.0 * float64(same) / float64(len(p))
	recall := 1.0 * float64(same) / float64(len(t))
	return (2 * precision * recall) / (precision + recall)
}

// FeatureInputs returns feature i's BERT inputs as the reference's SQuAD
// QSL feeds them: input_ids (the tokens' ids in vocab, [UNK]'s for a
// token it lacks), input_mask (1 over the tokens) and segment_ids (0 over
// [CLS], the query and its [SEP]; 1 over the context and the last
// [SEP]), each padded with zeros to the sequence length, 384.
func (s *SQuAD) FeatureInputs(i int, vocab Vocab) (ids, mask, segments []int32) {
	ids, mask, segments = make([]int32, squadMaxSeq), make([]int32, squadMaxSeq), make([]int32, squadMaxSeq)
	seg := int32(0)
	for k, tok := range s.features[i].tokens {
		id, ok := vocab[tok]
		if !ok {
			id = vocab["[UNK]"]
		}
		ids[k], mask[k], segments[k] = int32(id), 1, seg
		if tok == "[SEP]" {
			seg = 1
		}
	}
	return ids, mask, segments
}
