package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// fileJSON is tokenizer.json's top level.
type fileJSON struct {
	Version       *string          `json:"version"`
	Truncation    json.RawMessage  `json:"truncation"`
	Padding       json.RawMessage  `json:"padding"`
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Decoder       json.RawMessage  `json:"decoder"`
	Model         *json.RawMessage `json:"model"`
}

type addedTokenJSON struct {
	ID         *int64 `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    bool   `json:"special"`
}

// fieldError names the field of tokenizer.json an error is about.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

func fieldErr(field string, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) && fe == err {
		return &fieldError{field: field + "." + fe.field, err: fe.err}
	}
	return &fieldError{field: field, err: err}
}

func fieldErrf(field, format string, args ...any) error {
	return &fieldError{field: field, err: fmt.Errorf(format, args...)}
}

// unmarshal decodes raw into v, naming field (and the sub-field
// encoding/json found ill-typed) in the error.
func unmarshal(field string, raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fieldErrf(field+"."+te.Field, "want %s, have JSON %s", te.Type, te.Value)
		}
		if errors.As(err, &te) {
			return fieldErrf(field, "want %s, have JSON %s", te.Type, te.Value)
		}
		return fieldErr(field, err)
	}
	return nil
}

func isNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// componentType reads the type of the component at field: "" and no
// error for null (no component).
func componentType(field string, raw []byte) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	return typeOf(field, raw)
}

// typeOf reads a component's "type".
func typeOf(field string, raw []byte) (string, error) {
	var t struct {
		Type *string `json:"type"`
	}
	if err := unmarshal(field, raw, &t); err != nil {
		return "", err
	}
	if t.Type == nil || *t.Type == "" {
		return "", fieldErrf(field+".type", "missing")
	}
	return *t.Type, nil
}

// parseList reads the list under key of a Sequence component at field,
// each element with parse; a missing list or a null element is an error.
func parseList[T any](field, key string, raw []byte, parse func(string, json.RawMessage) (T, error)) ([]T, error) {
	var v map[string]json.RawMessage
	if err := unmarshal(field, raw, &v); err != nil {
		return nil, err
	}
	if isNull(v[key]) {
		return nil, fieldErrf(field+"."+key, "missing")
	}
	var list []json.RawMessage
	if err := unmarshal(field+"."+key, v[key], &list); err != nil {
		return nil, err
	}
	out := make([]T, 0, len(list))
	for i, sub := range list {
		f := fmt.Sprintf("%s.%s[%d]", field, key, i)
		if isNull(sub) {
			return nil, fieldErrf(f, "null")
		}
		x, err := parse(f, sub)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// maxTokenID bounds the ids a file may use: ids index a table.
const maxTokenID = 1<<24 - 1

func parseTokenizer(data []byte) (*Tokenizer, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	var f fileJSON
	if err := unmarshal("tokenizer.json", data, &f); err != nil {
		return nil, err
	}
	if f.Version != nil && *f.Version != "1.0" {
		return nil, fieldErrf("version", "%q: want 1.0", *f.Version)
	}
	if !isNull(f.Truncation) {
		return nil, fieldErrf("truncation", "not supported: want null")
	}
	if !isNull(f.Padding) {
		return nil, fieldErrf("padding", "not supported: want null")
	}
	if f.Model == nil || isNull(*f.Model) {
		return nil, fieldErrf("model", "missing")
	}
	t := &Tokenizer{}
	var err error
	if t.normalizer, err = parseNormalizer("normalizer", f.Normalizer); err != nil {
		return nil, err
	}
	if t.pre, t.byteDomain, err = parsePreTokenizerTop(f.PreTokenizer); err != nil {
		return nil, err
	}
	if t.model, err = parseModel("model", *f.Model, t.byteDomain); err != nil {
		return nil, err
	}
	if err := t.addTokens(f.AddedTokens); err != nil {
		return nil, err
	}
	if t.decoder, err = parseDecoder("decoder", f.Decoder); err != nil {
		return nil, err
	}
	if t.post, err = parsePostProcessor("post_processor", f.PostProcessor, t); err != nil {
		return nil, err
	}
	t.buildTokenTable()
	t.scratch.New = func() any { return new(scratch) }
	return t, nil
}

// addTokens registers added_tokens as the library does when it loads a
// file: in file order, an empty content skipped; a content the vocabulary
// (or an earlier added token) has keeps that id, any other takes the next
// id after the model's vocabulary (the file's own ids are not read back,
// as in the library, which only warns when they differ).
func (t *Tokenizer) addTokens(list []addedTokenJSON) error {
	av := &t.added
	av.ids = map[string]int32{}
	av.byID = map[int32]int{}
	av.special = map[string]bool{}
	next := int64(len(t.model.vocab))
	for i, a := range list {
		field := fmt.Sprintf("added_tokens[%d]", i)
		if a.ID == nil {
			return fieldErrf(field+".id", "missing")
		}
		if a.Content == "" {
			continue
		}
		normalized := !a.Special
		if a.Normalized != nil {
			normalized = *a.Normalized
		}
		tok := AddedToken{Content: a.Content, Special: a.Special, Normalized: normalized,
			LStrip: a.LStrip, RStrip: a.RStrip, SingleWord: a.SingleWord}
		if id, ok := av.ids[a.Content]; ok {
			if k, ok := av.byID[id]; ok && av.list[k] == withID(tok, id) {
				continue
			}
		}
		id, ok := t.TokenID(a.Content)
		if !ok {
			if next > maxTokenID {
				return fieldErrf(field, "more than %d token ids", maxTokenID+1)
			}
			id = int32(next)
			next++
		}
		tok.ID = id
		av.ids[a.Content] = id
		if k, ok := av.byID[id]; ok {
			av.list[k] = tok
		} else {
			av.byID[id] = len(av.list)
			av.list = append(av.list, tok)
		}
		if a.Special {
			av.special[a.Content] = true
		}
	}
	sort.Slice(av.list, func(i, j int) bool { return av.list[i].ID < av.list[j].ID })
	for k, tok := range av.list {
		av.byID[tok.ID] = k
	}
	return av.build(t.normalizer)
}

func withID(tok AddedToken, id int32) AddedToken {
	tok.ID = id
	return tok
}

// buildTokenTable fills t.tokens: added tokens first (their normalized
// form when normalizing changes them, as the library's decode shows
// them), then the vocabulary.
func (t *Tokenizer) buildTokenTable() {
	maxID := int32(-1)
	for _, id := range t.model.vocab {
		maxID = max(maxID, id)
	}
	for _, a := range t.added.list {
		maxID = max(maxID, a.ID)
	}
	t.tokens = make([]tokenInfo, maxID+1)
	for tok, id := range t.model.vocab {
		t.tokens[id] = tokenInfo{text: tok, ok: true}
	}
	for _, a := range t.added.list {
		text := a.Content
		if n, ok := t.added.normalizedForm[a.ID]; ok {
			text = n
		}
		t.tokens[a.ID] = tokenInfo{text: text, ok: true}
	}
	for id := range t.tokens {
		if t.tokens[id].ok && t.added.special[t.tokens[id].text] {
			t.tokens[id].special = true
		}
	}
}
