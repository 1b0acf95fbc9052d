package accel

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Option is one plugin option of a Config type C: its name as the host
// passes it in sdk.Model.Options, a line of help, and how it sets a
// private copy of a Config.
type Option[C any] struct {
	Name string
	Help string
	Set  func(c *C, v string) error
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

// StringOption sets a string field.
func StringOption[C any](name, help string, field func(*C) *string) Option[C] {
	return Option[C]{Name: name, Help: help, Set: func(c *C, v string) error { *field(c) = v; return nil }}
}

// IntOption sets an int field.
func IntOption[C any](name, help string, field func(*C) *int) Option[C] {
	return Option[C]{Name: name, Help: help, Set: func(c *C, v string) (err error) {
		*field(c), err = strconv.Atoi(v)
		return err
	}}
}

// FloatOption sets a float64 field.
func FloatOption[C any](name, help string, field func(*C) *float64) Option[C] {
	return Option[C]{Name: name, Help: help, Set: func(c *C, v string) (err error) {
		*field(c), err = strconv.ParseFloat(v, 64)
		return err
	}}
}

// BoolOption sets a bool field (strconv.ParseBool's spellings).
func BoolOption[C any](name, help string, field func(*C) *bool) Option[C] {
	return Option[C]{Name: name, Help: help, Set: func(c *C, v string) (err error) {
		*field(c), err = strconv.ParseBool(v)
		return err
	}}
}

// DurationOption sets a time.Duration field from a Go duration, e.g. "30s".
func DurationOption[C any](name, help string, field func(*C) *time.Duration) Option[C] {
	return Option[C]{Name: name, Help: help, Set: func(c *C, v string) (err error) {
		*field(c), err = time.ParseDuration(v)
		return err
	}}
}

// PathsOption sets a list of library paths from a colon-separated value.
func PathsOption[C any](name, help string, field func(*C) *[]string) Option[C] {
	return Option[C]{Name: name, Help: help, Set: func(c *C, v string) error { *field(c) = SplitPaths(v); return nil }}
}

// DevicesOption sets a device list (see [ParseDevices]).
func DevicesOption[C any](name, help string, field func(*C) *[]int) Option[C] {
	return Option[C]{Name: name, Help: help, Set: func(c *C, v string) (err error) {
		*field(c), err = ParseDevices(v)
		return err
	}}
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
func EnumOption[C, T any](name, help string, names map[string]T, field func(*C) *T) Option[C] {
	return Option[C]{Name: name, Help: help, Set: func(c *C, v string) error {
		t, ok := names[v]
		if !ok {
			keys := slices.Sorted(maps.Keys(names))
			return fmt.Errorf("want %s or %s, got %q", strings.Join(keys[:len(keys)-1], ", "), keys[len(keys)-1], v)
		}
		*field(c) = t
		return nil
	}}
}
