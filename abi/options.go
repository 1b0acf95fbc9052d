package abi

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// OptionType is the type of a plugin option in an option schema
// (backendv1.OptionSpec.type, v1.2): how its value, always a string on
// the wire, is read.
type OptionType string

// The option types.
const (
	OptionString   OptionType = "string"
	OptionInt      OptionType = "int"
	OptionUint     OptionType = "uint"
	OptionFloat    OptionType = "float"
	OptionBool     OptionType = "bool"
	OptionDuration OptionType = "duration"
	OptionEnum     OptionType = "enum"
	// OptionPath (v1.3) is a path of the plugin's machine, or several
	// separated by ':' (a file to open, a library to load): a host that
	// serves the plugin to other machines lets a remote host name only
	// paths inside the directory its operator allows. To a host of an
	// older minor a plugin declares it [OptionString].
	OptionPath OptionType = "path"
)

// Limits of an option schema, so that a plugin cannot make the host hold
// or print without bound what it declares.
const (
	MaxOptions       = 256
	MaxOptionName    = 128
	MaxOptionText    = 1024 // a default, an allowed value, a doc line
	MaxOptionAllowed = 256
)

// OptionTypes lists the option types.
func OptionTypes() []OptionType {
	return []OptionType{OptionString, OptionInt, OptionUint, OptionFloat, OptionBool, OptionDuration, OptionEnum, OptionPath}
}

// ParseBool reads an option of type bool: "true", "false", "1" or "0".
func ParseBool(v string) (bool, error) {
	switch v {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, errors.New("want true, false, 1 or 0")
}

// CheckOptionValue reports whether v is a value of an option of type t;
// an enum takes one of allowed. The error says what is wanted.
func CheckOptionValue(t OptionType, allowed []string, v string) error {
	var err error
	switch t {
	case "", OptionString, OptionPath:
	case OptionInt:
		if _, e := strconv.ParseInt(v, 10, 64); e != nil {
			err = errors.New("want an integer")
		}
	case OptionUint:
		if _, e := strconv.ParseUint(v, 10, 64); e != nil {
			err = errors.New("want a non-negative integer")
		}
	case OptionFloat:
		if _, e := strconv.ParseFloat(v, 64); e != nil {
			err = errors.New("want a number")
		}
	case OptionBool:
		_, err = ParseBool(v)
	case OptionDuration:
		if d, e := time.ParseDuration(v); e != nil || d < 0 {
			err = errors.New("want a duration such as 500us or 2ms")
		}
	case OptionEnum:
		if !slices.Contains(allowed, v) {
			err = fmt.Errorf("want one of %s", strings.Join(allowed, ", "))
		}
	default:
		err = fmt.Errorf("unknown option type %q", t)
	}
	return err
}

// CheckOptionSchema reports what is wrong with an option schema: an empty,
// long or repeated name, an unknown type, an enum without values, a
// default that is not a value of its option, text past the limits.
func CheckOptionSchema(schema []*backendv1.OptionSpec) error {
	if len(schema) > MaxOptions {
		return fmt.Errorf("option schema: %d options, at most %d", len(schema), MaxOptions)
	}
	var errs []error
	seen := make(map[string]bool, len(schema))
	for i, o := range schema {
		name := o.GetName()
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("option schema: option %d (%q): %s", i, truncate(name, MaxOptionName), fmt.Sprintf(format, args...)))
		}
		switch {
		case name == "":
			bad("no name")
		case len(name) > MaxOptionName:
			bad("name longer than %d bytes", MaxOptionName)
		case strings.ContainsAny(name, "= \t\n"):
			bad("name contains '=' or white space")
		case seen[name]:
			bad("declared twice")
		}
		seen[name] = true
		t := OptionType(o.GetType())
		if t != "" && !slices.Contains(OptionTypes(), t) {
			bad("type %q: want one of %v", truncate(string(t), MaxOptionName), OptionTypes())
			continue
		}
		if len(o.GetAllowed()) > MaxOptionAllowed {
			bad("%d allowed values, at most %d", len(o.GetAllowed()), MaxOptionAllowed)
		}
		if t == OptionEnum && len(o.GetAllowed()) == 0 {
			bad("an enum with no allowed values")
		}
		for _, s := range append([]string{o.GetDefaultValue(), o.GetDoc()}, o.GetAllowed()...) {
			if len(s) > MaxOptionText {
				bad("a default, doc or allowed value longer than %d bytes", MaxOptionText)
				break
			}
		}
		if d := o.GetDefaultValue(); d != "" {
			if err := CheckOptionValue(t, o.GetAllowed(), d); err != nil {
				bad("default %q: %v", truncate(d, MaxOptionName), err)
			}
		}
	}
	return errors.Join(errs...)
}

// OptionError is an option that an option schema rejects.
type OptionError struct {
	Name, Value string
	// Unknown: no option has the name; Suggest then lists the close
	// matches and Known every name.
	Unknown bool
	Suggest []string
	Known   []string
	// Err says what is wrong with the value of a known option.
	Err error
}

func (e *OptionError) Error() string {
	if !e.Unknown {
		return fmt.Sprintf("option %s=%q: %v", e.Name, e.Value, e.Err)
	}
	msg := fmt.Sprintf("unknown option %q", e.Name)
	if len(e.Suggest) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(e.Suggest, " or "))
	}
	if len(e.Known) == 0 {
		return msg + "; the plugin takes no options"
	}
	return msg + "; the plugin's options are " + strings.Join(e.Known, ", ")
}

// CheckOptions checks options against a schema: every name known, every
// value of its type. Errors are [*OptionError] values, joined, in name
// order. An empty schema accepts anything: the plugin did not declare one.
func CheckOptions(schema []*backendv1.OptionSpec, opts map[string]string) error {
	if len(schema) == 0 {
		return nil
	}
	known := make([]string, 0, len(schema))
	byName := make(map[string]*backendv1.OptionSpec, len(schema))
	for _, o := range schema {
		known = append(known, o.GetName())
		byName[o.GetName()] = o
	}
	slices.Sort(known)
	names := make([]string, 0, len(opts))
	for k := range opts {
		names = append(names, k)
	}
	slices.Sort(names)
	var errs []error
	for _, k := range names {
		o, ok := byName[k]
		if !ok {
			errs = append(errs, &OptionError{Name: k, Value: opts[k], Unknown: true, Suggest: CloseMatches(k, known), Known: known})
			continue
		}
		if err := CheckOptionValue(OptionType(o.GetType()), o.GetAllowed(), opts[k]); err != nil {
			errs = append(errs, &OptionError{Name: k, Value: opts[k], Err: err})
		}
	}
	return errors.Join(errs...)
}

// CloseMatches returns the candidates that look like a misspelling of
// name, nearest first (at most three): within an edit distance of a third
// of the name's length (at least 1), or sharing a prefix or suffix of
// four letters or more with it ("batch" and "max_batch").
func CloseMatches(name string, candidates []string) []string {
	type match struct {
		s string
		d int
	}
	var ms []match
	limit := max(1, len(name)/3)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if d <= limit || affix(name, c) {
			ms = append(ms, match{c, d})
		}
	}
	slices.SortStableFunc(ms, func(a, b match) int { return a.d - b.d })
	out := make([]string, 0, min(3, len(ms)))
	for _, m := range ms[:min(3, len(ms))] {
		out = append(out, m.s)
	}
	return out
}

// affix reports whether one name contains the other whole, when the
// shorter has four letters or more.
func affix(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.Contains(strings.ToLower(b), strings.ToLower(a))
}

// editDistance is the Levenshtein distance of a and b, in bytes; names
// longer than MaxOptionName count as far from everything.
func editDistance(a, b string) int {
	if len(a) > MaxOptionName || len(b) > MaxOptionName {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
