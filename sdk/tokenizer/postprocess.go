package tokenizer

import (
	"encoding/json"
	"fmt"
)

// postProcessor is what a post-processor adds around one sequence when
// special tokens are added: ids before and after it. Offsets and pairs of
// sequences are not modelled.
type postProcessor struct {
	prefix, suffix []int32
}

func parsePostProcessor(field string, raw json.RawMessage, t *Tokenizer) (*postProcessor, error) {
	if isNull(raw) {
		return nil, nil // no post-processor
	}
	p := &postProcessor{}
	if err := p.parse(field, raw, t); err != nil {
		return nil, err
	}
	return p, nil
}

// wrap adds the ids one processor puts around what the earlier ones made.
func (p *postProcessor) wrap(prefix, suffix []int32) {
	p.prefix = append(append([]int32(nil), prefix...), p.prefix...)
	p.suffix = append(p.suffix, suffix...)
}

func (p *postProcessor) parse(field string, raw json.RawMessage, t *Tokenizer) error {
	typ, err := typeOf(field, raw)
	if err != nil {
		return err
	}
	switch typ {
	case "Sequence":
		_, err := parseList(field, "processors", raw, func(f string, sub json.RawMessage) (struct{}, error) {
			return struct{}{}, p.parse(f, sub, t)
		})
		return err
	case "ByteLevel":
		return nil // offsets only
	case "TemplateProcessing":
		return p.parseTemplate(field, raw)
	case "BertProcessing", "RobertaProcessing":
		var v struct {
			Sep *[2]json.RawMessage `json:"sep"`
			Cls *[2]json.RawMessage `json:"cls"`
		}
		if err := unmarshal(field, raw, &v); err != nil {
			return err
		}
		if v.Sep == nil || v.Cls == nil {
			return fieldErrf(field, "want sep and cls")
		}
		var sep, cls int32
		if err := unmarshal(field+".sep[1]", v.Sep[1], &sep); err != nil {
			return err
		}
		if err := unmarshal(field+".cls[1]", v.Cls[1], &cls); err != nil {
			return err
		}
		p.wrap([]int32{cls}, []int32{sep})
		return nil
	}
	return fieldErrf(field+".type", "post-processor %q is not supported (TemplateProcessing, ByteLevel, BertProcessing, RobertaProcessing, Sequence are)", typ)
}

// parseTemplate reads a TemplateProcessing's single template: the special
// tokens before and after the sequence $A.
func (p *postProcessor) parseTemplate(field string, raw json.RawMessage) error {
	var v struct {
		Single []struct {
			SpecialToken *struct {
				ID string `json:"id"`
			} `json:"SpecialToken"`
			Sequence *struct {
				ID string `json:"id"`
			} `json:"Sequence"`
		} `json:"single"`
		SpecialTokens map[string]struct {
			ID  string  `json:"id"`
			IDs []int64 `json:"ids"`
		} `json:"special_tokens"`
	}
	if err := unmarshal(field, raw, &v); err != nil {
		return err
	}
	var prefix, suffix []int32
	seen := false
	for i, piece := range v.Single {
		f := fmt.Sprintf("%s.single[%d]", field, i)
		switch {
		case piece.Sequence != nil && piece.SpecialToken == nil:
			if piece.Sequence.ID != "A" {
				return fieldErrf(f+".Sequence.id", "%q: a single sequence is A", piece.Sequence.ID)
			}
			if seen {
				return fieldErrf(f, "the sequence twice")
			}
			seen = true
		case piece.SpecialToken != nil && piece.Sequence == nil:
			st, ok := v.SpecialTokens[piece.SpecialToken.ID]
			if !ok {
				return fieldErrf(f+".SpecialToken.id", "%q is not in special_tokens", piece.SpecialToken.ID)
			}
			ids := make([]int32, len(st.IDs))
			for k, id := range st.IDs {
				if id < 0 || id > maxTokenID {
					return fieldErrf(fmt.Sprintf("%s.special_tokens[%q].ids[%d]", field, piece.SpecialToken.ID, k), "id %d out of range", id)
				}
				ids[k] = int32(id)
			}
			if seen {
				suffix = append(suffix, ids...)
			} else {
				prefix = append(prefix, ids...)
			}
		default:
			return fieldErrf(f, "want one of SpecialToken or Sequence")
		}
	}
	if !seen {
		return fieldErrf(field+".single", "no Sequence A")
	}
	p.wrap(prefix, suffix)
	return nil
}
