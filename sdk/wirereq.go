package sdk

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// The requests that carry bulk bytes (LoadRequest: a model;
// LoadSamplesRequest: samples) are decoded here rather than by
// proto.Unmarshal, which copies every bytes field: the decoded bytes alias
// the request buffer. A WASM guest thus keeps its samples in the buffer the
// host wrote them to, and loads a model without holding it twice. The
// decoders accept what proto.Unmarshal accepts and agree with it (the fuzz
// test checks): unknown fields and fields of an unexpected wire type are
// skipped, the last of a repeated scalar wins, strings must be UTF-8.

// errWire is wrapped by every decoding error.
var errWire = errors.New("malformed protobuf request")

// wireModel is a decoded LoadRequest.
type wireModel struct {
	path    string
	bytes   []byte
	options map[string]string
	run     *backendv1.RunConfig
	inputs  []*backendv1.TensorSpec
}

// decodeLoadRequest decodes a mlperf.backend.v1.LoadRequest.
func decodeLoadRequest(b []byte) (wireModel, error) {
	var m wireModel
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			if !utf8.Valid(v) {
				return fmt.Errorf("%w: model_path is not UTF-8", errWire)
			}
			m.path = string(v)
		case 2:
			m.bytes = v
		case 3:
			k, val, err := decodeMapEntry(v)
			if err != nil {
				return err
			}
			if m.options == nil {
				m.options = map[string]string{}
			}
			m.options[k] = val
		case 4:
			// Small: decoded by proto, merged as proto.Unmarshal merges a
			// repeated message field.
			if m.run == nil {
				m.run = &backendv1.RunConfig{}
			}
			if err := proto.Unmarshal(v, m.run); err != nil {
				return fmt.Errorf("%w: run: %w", errWire, err)
			}
		case 5:
			in := &backendv1.TensorSpec{}
			if err := proto.Unmarshal(v, in); err != nil {
				return fmt.Errorf("%w: inputs: %w", errWire, err)
			}
			m.inputs = append(m.inputs, in)
		}
		return nil
	})
	return m, err
}

// decodeMapEntry decodes a map<string, string> entry.
func decodeMapEntry(b []byte) (key, value string, err error) {
	err = eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType || (num != 1 && num != 2) {
			return nil
		}
		if !utf8.Valid(v) {
			return fmt.Errorf("%w: an option is not UTF-8", errWire)
		}
		if num == 1 {
			key = string(v)
		} else {
			value = string(v)
		}
		return nil
	})
	return key, value, err
}

// wireSamples is a decoded LoadSamplesRequest.
type wireSamples struct {
	hasArena  bool
	arenaPath string
	arenaSize uint64
	samples   []wireSampleRef
}

// wireSampleRef is a decoded SampleRef; data aliases the request.
type wireSampleRef struct {
	index, offset, length uint64
	data                  []byte
	tensors               []tensorRef
}

// decodeLoadSamplesRequest decodes a mlperf.backend.v1.LoadSamplesRequest.
func decodeLoadSamplesRequest(b []byte) (wireSamples, error) {
	var r wireSamples
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			r.hasArena = true
			return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
				switch {
				case num == 1 && typ == protowire.BytesType:
					if !utf8.Valid(v) {
						return fmt.Errorf("%w: arena path is not UTF-8", errWire)
					}
					r.arenaPath = string(v)
				case num == 2 && typ == protowire.VarintType:
					r.arenaSize = x
				}
				return nil
			})
		case 2:
			var s wireSampleRef
			err := eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
				switch {
				case num == 4 && typ == protowire.BytesType:
					s.data = v
				case num == 5 && typ == protowire.BytesType:
					var r backendv1.TensorRef
					if err := proto.Unmarshal(v, &r); err != nil {
						return fmt.Errorf("%w: tensors: %w", errWire, err)
					}
					s.tensors = append(s.tensors, refsFrom([]*backendv1.TensorRef{&r})...)
				case typ != protowire.VarintType:
				case num == 1:
					s.index = x
				case num == 2:
					s.offset = x
				case num == 3:
					s.length = x
				}
				return nil
			})
			if err != nil {
				return err
			}
			r.samples = append(r.samples, s)
		}
		return nil
	})
	return r, err
}

// eachField calls f with every field of the message b: for a varint its
// value in x, for a length-delimited field its bytes in v.
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", errWire, protowire.ParseError(n))
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
			v = v[:len(v):len(v)]
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %v", errWire, num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}
