package accel

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// Option is one plugin option of a Config type C: its name as the host
// passes it in sdk.Model.Options, a line of help, its type in the option
// schema, how it sets a private copy of a Config and how it reads one
// back (the schema's default is the default Config's value).
type Option[C any] struct {
	Name string
	Help string
	// Type and Allowed are the option's in the schema (see sdk.Option).
	Type    abi.OptionType
	Allowed []string
	Set     func(c *C, v string) error
	// Get spells c's value as Set takes it; "" declares no default (Load
	// then sees no key, and the plugin chooses, e.g. per scenario).
	Get func(c *C) string
}

// ApplyOptions applies opts to c, a private copy the caller made, in the
// order of their names, and reports every unknown key and malformed value
// together. Values are trimmed of spaces first.
func ApplyOptions[C any](c *C, table []Option[C], opts map[string]string) error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		i := slices.IndexFunc(table, func(o Option[C]) bool { return o.Name == k })
		if i < 0 {
			names := make([]string, len(table))
			for j, o := range table {
				names[j] = o.Name
			}
			errs = append(errs, fmt.Errorf("option %s: unknown option; valid options are %s", k,
				strings.Join(names, ", ")))
			continue
		}
		if err := table[i].Set(c, strings.TrimSpace(opts[k])); err != nil {
			errs = append(errs, fmt.Errorf("option %s: %w", k, err))
		}
	}
	return errors.Join(errs...)
}

// Schema declares table's options for sdk.Info.Options, each with its
// value in defaults as its default, so that what `plugins describe`
// prints is what Load applies when the option is not set.
func Schema[C any](table []Option[C], defaults C) []sdk.Option {
	out := make([]sdk.Option, len(table))
	for i, o := range table {
		out[i] = sdk.Option{Name: o.Name, Type: o.Type, Allowed: slices.Clone(o.Allowed), Doc: o.Help}
		if o.Get != nil {
			out[i].Default = o.Get(&defaults)
		}
	}
	return out
}

// StringOption sets a string field.
func StringOption[C any](name, help string, field func(*C) *string) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionString,
		Set: func(c *C, v string) error { *field(c) = v; return nil },
		Get: func(c *C) string { return *field(c) }}
}

// IntOption sets an int field.
func IntOption[C any](name, help string, field func(*C) *int) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionInt, Set: func(c *C, v string) (err error) {
		*field(c), err = strconv.Atoi(v)
		return err
	}, Get: func(c *C) string { return strconv.Itoa(*field(c)) }}
}

// UintOption sets an int field that must not be negative.
func UintOption[C any](name, help string, field func(*C) *int) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionUint, Set: func(c *C, v string) error {
		n, err := strconv.ParseUint(v, 10, 31)
		if err != nil {
			return fmt.Errorf("want a non-negative integer, got %q", v)
		}
		*field(c) = int(n)
		return nil
	}, Get: func(c *C) string { return strconv.Itoa(*field(c)) }}
}

// FloatOption sets a float64 field.
func FloatOption[C any](name, help string, field func(*C) *float64) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionFloat, Set: func(c *C, v string) (err error) {
		*field(c), err = strconv.ParseFloat(v, 64)
		return err
	}, Get: func(c *C) string { return strconv.FormatFloat(*field(c), 'g', -1, 64) }}
}

// BoolOption sets a bool field: "true", "false", "1" or "0", the option
// schema's spellings.
func BoolOption[C any](name, help string, field func(*C) *bool) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionBool, Set: func(c *C, v string) (err error) {
		*field(c), err = abi.ParseBool(v)
		return err
	}, Get: func(c *C) string { return strconv.FormatBool(*field(c)) }}
}

// DurationOption sets a time.Duration field from a Go duration, e.g. "30s".
// A negative field has no default: the plugin chooses (see [Option.Get]).
func DurationOption[C any](name, help string, field func(*C) *time.Duration) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionDuration, Set: func(c *C, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration such as 500us or 2ms, got %q", v)
		}
		*field(c) = d
		return nil
	}, Get: func(c *C) string {
		if d := *field(c); d >= 0 {
			return d.String()
		}
		return ""
	}}
}

// PathOption sets a string field that names a file or directory of the
// plugin's machine (type path: a host serving the plugin to others checks
// it).
func PathOption[C any](name, help string, field func(*C) *string) Option[C] {
	o := StringOption(name, help, field)
	o.Type = abi.OptionPath
	return o
}

// PathsOption sets a list of library paths from a colon-separated value.
func PathsOption[C any](name, help string, field func(*C) *[]string) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionPath,
		Set: func(c *C, v string) error { *field(c) = SplitPaths(v); return nil },
		Get: func(c *C) string { return strings.Join(*field(c), ":") }}
}

// DevicesOption sets a device list (see [ParseDevices]).
func DevicesOption[C any](name, help string, field func(*C) *[]int) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionString, Set: func(c *C, v string) (err error) {
		*field(c), err = ParseDevices(v)
		return err
	}, Get: func(c *C) string { return FormatDevices(*field(c)) }}
}

// NUMAOption sets a NUMA configuration (see [ParseNUMA]).
func NUMAOption[C any](name, help string, field func(*C) *[]NUMANode) Option[C] {
	return Option[C]{Name: name, Help: help, Type: abi.OptionString, Set: func(c *C, v string) (err error) {
		*field(c), err = ParseNUMA(v)
		return err
	}, Get: func(c *C) string { return FormatNUMA(*field(c)) }}
}

// SplitPaths splits a colon-separated list, dropping empty entries.
func SplitPaths(v string) []string {
	var out []string
	for p := range strings.SplitSeq(v, ":") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// MaxDevice bounds device numbers and range sizes in a device list.
const MaxDevice = 1 << 16

// ParseDevices parses a device list: "all" (or empty) selects every device
// and returns nil; otherwise comma-separated device numbers and inclusive
// ranges, e.g. "0,2-5", in the order written and without repeats.
func ParseDevices(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return nil, nil
	}
	seen := map[int]bool{}
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, err := parseRange(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		for d := lo; d <= hi; d++ {
			if seen[d] {
				return nil, fmt.Errorf("device %d listed twice", d)
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	return out, nil
}

// FormatDevices spells a device list as ParseDevices reads it, with runs
// of consecutive devices as ranges: nil is "all".
func FormatDevices(devices []int) string {
	if devices == nil {
		return "all"
	}
	var parts []string
	for i := 0; i < len(devices); {
		j := i
		for j+1 < len(devices) && devices[j+1] == devices[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", devices[i], devices[j]))
		} else {
			parts = append(parts, strconv.Itoa(devices[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// parseRange parses "3" or "2-5".
func parseRange(part string) (lo, hi int, err error) {
	first, last, isRange := strings.Cut(part, "-")
	if lo, err = parseDevice(first); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return lo, lo, nil
	}
	if hi, err = parseDevice(last); err != nil {
		return 0, 0, err
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("device range %q runs backwards", part)
	}
	return lo, hi, nil
}

func parseDevice(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("device %q: not a number", s)
	}
	if n < 0 || n >= MaxDevice {
		return 0, fmt.Errorf("device %d outside [0, %d)", n, MaxDevice)
	}
	return n, nil
}

// SelectDevices returns the wanted devices that were found, in the order
// wanted, or every device found when want is nil.
func SelectDevices(want, found []int) []int {
	if want == nil {
		return found
	}
	var out []int
	for _, d := range want {
		if slices.Contains(found, d) {
			out = append(out, d)
		}
	}
	return out
}

// EnumOption sets a field to the value names maps the option's value to,
// and names every accepted value when the value is none of them.
func EnumOption[C any, T comparable](name, help string, names map[string]T, field func(*C) *T) Option[C] {
	keys := slices.Sorted(maps.Keys(names))
	return Option[C]{Name: name, Help: help, Type: abi.OptionEnum, Allowed: keys, Set: func(c *C, v string) error {
		t, ok := names[v]
		if !ok {
			return fmt.Errorf("want %s or %s, got %q", strings.Join(keys[:len(keys)-1], ", "), keys[len(keys)-1], v)
		}
		*field(c) = t
		return nil
	}, Get: func(c *C) string {
		for _, k := range keys {
			if names[k] == *field(c) {
				return k
			}
		}
		return ""
	}}
}
