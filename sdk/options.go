package sdk

import (
	"maps"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// Option declares one option Load accepts, in [Info.Options].
type Option struct {
	// Name is the key: "--set PLUGIN.NAME=VALUE".
	Name string
	// Type says how the value is read: [abi.OptionString] (also when
	// empty), [abi.OptionInt], [abi.OptionUint], [abi.OptionFloat],
	// [abi.OptionBool] ("true", "false", "1", "0"), [abi.OptionDuration]
	// (Go syntax, "2ms") or [abi.OptionEnum] (one of Allowed).
	Type abi.OptionType
	// Default is the value Load sees when the option is not set; "" for
	// none (Load then sees no key).
	Default string
	// Allowed are an enum's values.
	Allowed []string
	// Doc is one line saying what the option does.
	Doc string
}

// optionSchema converts the declared options.
func optionSchema(opts []Option) []*backendv1.OptionSpec {
	out := make([]*backendv1.OptionSpec, 0, len(opts))
	for _, o := range opts {
		out = append(out, &backendv1.OptionSpec{Name: o.Name, Type: string(o.Type), DefaultValue: o.Default, Allowed: o.Allowed, Doc: o.Doc})
	}
	return out
}

// applySchema checks opts against a declared schema and returns them with
// the defaults of the options not set; with no schema, opts as they are.
func applySchema(schema []*backendv1.OptionSpec, opts map[string]string) (map[string]string, error) {
	if len(schema) == 0 {
		return opts, nil
	}
	if err := abi.CheckOptions(schema, opts); err != nil {
		return nil, Errorf(abi.InvalidArgument, "%v", err)
	}
	out := maps.Clone(opts)
	for _, o := range schema {
		if _, set := out[o.GetName()]; !set && o.GetDefaultValue() != "" {
			out[o.GetName()] = o.GetDefaultValue()
		}
	}
	return out, nil
}
