package qwen3vl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Response is what a response holds, as evaluation.py reads it.
const Response = "the reply's text, UTF-8: a JSON object of category, brand and is_secondhand (ProductMetadata)"

// Metadata is a reply as ProductMetadata validates it.
type Metadata struct {
	Category, Brand string
	Secondhand      bool
}

// ErrSchema is a reply that ProductMetadata.model_validate_json refuses.
var ErrSchema = errors.New("reply does not match ProductMetadata")

// ParseMetadata validates a reply as pydantic's model_validate_json does
// for ProductMetadata (extra fields forbidden, lax mode): one JSON object
// with white space around it at most; category and brand strings;
// is_secondhand true or false, the numbers 0 and 1 (1.0, 1e0, -0), or
// one of the strings pydantic reads as a boolean, in any case ("yes",
// "off", "t", ...); a repeated key's last value counts; no other key; no
// unpaired surrogate escape.
//
// # Errors
//
// Wraps [ErrSchema].
func ParseMetadata(reply []byte) (Metadata, error) {
	var m Metadata
	if err := checkSurrogates(reply); err != nil {
		return m, err
	}
	dec := json.NewDecoder(bytes.NewReader(reply))
	dec.UseNumber()
	var fields map[string]any
	if err := dec.Decode(&fields); err != nil {
		return m, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if fields == nil {
		return m, fmt.Errorf("%w: not an object", ErrSchema)
	}
	if rest := bytes.TrimLeft(reply[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return m, fmt.Errorf("%w: characters after the object", ErrSchema)
	}
	for k := range fields {
		if k != "category" && k != "brand" && k != "is_secondhand" {
			return m, fmt.Errorf("%w: extra field %q", ErrSchema, k)
		}
	}
	var ok bool
	if m.Category, ok = fields["category"].(string); !ok {
		return m, fmt.Errorf("%w: category is not a string", ErrSchema)
	}
	if m.Brand, ok = fields["brand"].(string); !ok {
		return m, fmt.Errorf("%w: brand is not a string", ErrSchema)
	}
	switch v := fields["is_secondhand"].(type) {
	case bool:
		m.Secondhand = v
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || (f != 0 && f != 1) {
			return m, fmt.Errorf("%w: is_secondhand %s is not 0 or 1", ErrSchema, v)
		}
		m.Secondhand = f == 1
	case string:
		switch strings.ToLower(v) {
		case "1", "on", "t", "true", "y", "yes":
			m.Secondhand = true
		case "0", "off", "f", "false", "n", "no":
		default:
			return m, fmt.Errorf("%w: is_secondhand %q is not a boolean", ErrSchema, v)
		}
	default:
		return m, fmt.Errorf("%w: is_secondhand is not a boolean", ErrSchema)
	}
	return m, nil
}

// checkSurrogates refuses a \u escape of a surrogate that is not a high
// one followed by a low one, which pydantic's JSON parser refuses and
// encoding/json replaces.
func checkSurrogates(b []byte) error {
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(b):
			if b[i+1] != 'u' {
				i++
				continue
			}
			r, ok := hex4(b, i+2)
			if !ok {
				return nil // encoding/json refuses it
			}
			i += 5
			if !utf16.IsSurrogate(r) {
				continue
			}
			if r >= 0xdc00 {
				return fmt.Errorf("%w: unpaired surrogate escape", ErrSchema)
			}
			lo, ok := rune(0), i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u'
			if ok {
				lo, ok = hex4(b, i+3)
			}
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return fmt.Errorf("%w: unpaired surrogate escape", ErrSchema)
			}
			i += 6
		}
	}
	return nil
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[at:at+4]), 16, 32)
	return rune(v), err == nil
}
