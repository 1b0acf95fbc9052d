package manifest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"reflect"
	"regexp"
	"strings"
)

// FileName is the name of a plugin's manifest inside its directory.
const FileName = "plugin.json"

// Kind is how a plugin runs.
type Kind string

// The plugin kinds.
const (
	// KindWASM is a WASI reactor module run inside the host by wazero.
	KindWASM Kind = "wasm"
	// KindProcess is an executable started as a go-plugin subprocess.
	KindProcess Kind = "process"
)

// MaxMemoryLimitMiB is the largest memory cap a WASM plugin can ask for:
// the 4 GiB address space of a 32-bit WASM memory.
const MaxMemoryLimitMiB = 4096

// Manifest is the content of a plugin.json file.
type Manifest struct {
	// Name is the plugin's name, as users pass it to --plugin: lower-case
	// letters, digits, '.', '_' and '-', starting with a letter or digit, at
	// most 64 bytes.
	Name string `json:"name"`
	// Version is the plugin's own version, e.g. "1.2.0".
	Version string `json:"version"`
	// Kind is "wasm" or "process".
	Kind Kind `json:"kind"`
	// ABIMajor is the major version of the plugin ABI the plugin speaks.
	ABIMajor int `json:"abi_major"`
	// Entry is the .wasm file or executable, relative to the manifest's
	// directory, with forward slashes, never leaving that directory.
	Entry string `json:"entry"`
	// SHA256 is the hex SHA-256 of the entry file; empty means unchecked.
	SHA256 string `json:"sha256,omitempty"`
	// MemoryLimitMiB caps a WASM plugin's memory per instance; 0 means the
	// host's default. Only for kind "wasm".
	MemoryLimitMiB int `json:"memory_limit_mib,omitempty"`
	// Reattachable says the plugin may be started once and reattached to
	// by later runs. Only for kind "process".
	Reattachable bool `json:"reattachable,omitempty"`
	// Description is one line shown by "mlperf-host plugins list".
	Description string `json:"description,omitempty"`
}

// ErrInvalid is wrapped by every error about a manifest that cannot be read
// or breaks a rule.
var ErrInvalid = errors.New("invalid plugin manifest")

// Error is a problem with one manifest file, at one place in it when the
// place is known.
type Error struct {
	// File is the manifest's path as the caller named it.
	File string
	// Line and Column locate the problem (1-based); 0 when unknown.
	Line, Column int
	// Field is the JSON field at fault, or "".
	Field string
	// Err says what is wrong.
	Err error
}

// Error formats the problem as "file:line:col: field "x": what".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalid]: every manifest Error is one.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// maxSize bounds what Parse reads: a manifest is a few hundred bytes.
const maxSize = 64 << 10

// Parse decodes and validates the manifest in r. file names it in errors.
//
// # Errors
//
// Every error wraps [ErrInvalid]. Each is an [*Error], or several joined
// with errors.Join when more than one field breaks a rule.
func Parse(file string, r io.Reader) (Manifest, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxSize+1))
	if err != nil {
		return Manifest{}, &Error{File: file, Err: fmt.Errorf("read: %w", err)}
	}
	if len(b) > maxSize {
		return Manifest{}, &Error{File: file, Err: fmt.Errorf("larger than %d bytes", maxSize)}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, decodeError(file, b, dec, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		line, col := position(b, dec.InputOffset())
		return Manifest{}, &Error{File: file, Line: line, Column: col, Err: errors.New("unexpected data after the JSON object")}
	}
	if err := m.Validate(); err != nil {
		return Manifest{}, locate(file, b, err)
	}
	return m, nil
}

// decodeError turns an encoding/json error into an *Error with a position.
func decodeError(file string, b []byte, dec *json.Decoder, err error) error {
	e := &Error{File: file, Err: err}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		e.Line, e.Column = position(b, syntax.Offset-1) // Offset is just past the culprit
		e.Err = errors.New(strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.As(err, &typ):
		e.Line, e.Column = position(b, typ.Offset-1)
		e.Field = typ.Field
		e.Err = fmt.Errorf("want a JSON %s, got %s", jsonType(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.EOF):
		e.Err = errors.New("empty file: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		e.Line, e.Column = position(b, int64(len(b)))
		e.Err = errors.New("unexpected end of file")
	default:
		// Unknown fields: encoding/json says `json: unknown field "x"`.
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			e.Line, e.Column = position(b, dec.InputOffset())
			e.Field = strings.Trim(f, `"`)
			e.Err = fmt.Errorf("unknown field (known: %s)", strings.Join(fieldNames(), ", "))
		} else {
			e.Err = errors.New(strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	return e
}

// jsonType names a Go kind the way a manifest author thinks of it.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "struct":
		return "object"
	}
	return "number"
}

// position converts a byte offset into a 1-based line and column.
func position(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// locate adds the file and the position of each field's key to the errors
// of Validate.
func locate(file string, b []byte, err error) error {
	var errs []error
	for _, fe := range unjoin(err) {
		e := &Error{File: file, Err: fe}
		var f *fieldError
		if errors.As(fe, &f) {
			e.Field, e.Err = f.field, f.err
			if i := bytes.Index(b, []byte(`"`+f.field+`"`)); i >= 0 {
				e.Line, e.Column = position(b, int64(i))
			}
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// fieldError is a rule broken by one field.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return fmt.Sprintf("field %q: %v", e.field, e.err) }
func (e *fieldError) Unwrap() error { return e.err }

func fieldErr(field, format string, args ...any) error {
	return &fieldError{field: field, err: fmt.Errorf(format, args...)}
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// Validate checks every rule and reports each broken one, joined.
func (m Manifest) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) { errs = append(errs, fieldErr(field, format, args...)) }
	switch {
	case m.Name == "":
		add("name", "missing")
	case !nameRE.MatchString(m.Name):
		add("name", "%q is not a plugin name: use lower-case letters, digits, '.', '_' and '-', at most 64", m.Name)
	}
	switch {
	case m.Version == "":
		add("version", "missing")
	case len(m.Version) > 64 || strings.ContainsFunc(m.Version, isSpaceOrControl):
		add("version", "%q is not a version: at most 64 characters, no spaces", m.Version)
	}
	switch m.Kind {
	case KindWASM, KindProcess:
	case "":
		add("kind", `missing: want "wasm" or "process"`)
	default:
		add("kind", `want "wasm" or "process", got %q`, m.Kind)
	}
	if m.ABIMajor < 1 {
		add("abi_major", "missing or not positive: want the ABI major the plugin speaks, e.g. 1")
	}
	if err := checkEntry(m.Entry); err != nil {
		errs = append(errs, err)
	}
	if m.SHA256 != "" {
		if b, err := hex.DecodeString(m.SHA256); err != nil || len(b) != 32 {
			add("sha256", "want 64 hexadecimal digits, got %q", m.SHA256)
		}
	}
	if m.MemoryLimitMiB != 0 {
		if m.Kind == KindProcess {
			add("memory_limit_mib", `only for kind "wasm"`)
		} else if m.MemoryLimitMiB < 1 || m.MemoryLimitMiB > MaxMemoryLimitMiB {
			add("memory_limit_mib", "want 1 to %d, got %d", MaxMemoryLimitMiB, m.MemoryLimitMiB)
		}
	}
	if m.Reattachable && m.Kind == KindWASM {
		add("reattachable", `only for kind "process"`)
	}
	if strings.ContainsFunc(m.Description, isControl) {
		add("description", "must be one line of text")
	}
	return errors.Join(errs...)
}

func checkEntry(entry string) error {
	switch {
	case entry == "":
		return fieldErr("entry", "missing: want the .wasm file or executable, relative to the manifest")
	case strings.Contains(entry, `\`):
		return fieldErr("entry", "%q: use forward slashes", entry)
	case path.IsAbs(entry):
		return fieldErr("entry", "%q: must be relative to the manifest's directory", entry)
	case path.Clean(entry) != entry || entry == "." || entry == ".." || strings.HasPrefix(entry, "../"):
		return fieldErr("entry", "%q: must be a clean path inside the manifest's directory", entry)
	case strings.ContainsFunc(entry, isControl):
		return fieldErr("entry", "%q: contains control characters", entry)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func isSpaceOrControl(r rune) bool { return r == ' ' || isControl(r) }

// fieldNames lists the JSON fields of a Manifest, in declaration order.
func fieldNames() []string {
	t := reflect.TypeFor[Manifest]()
	names := make([]string, 0, t.NumField())
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

// Checksum returns the decoded SHA256, or nil when the manifest has none.
// It assumes a validated manifest.
func (m Manifest) Checksum() []byte {
	b, err := hex.DecodeString(m.SHA256)
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

// MemoryLimitPages returns MemoryLimitMiB in 64 KiB WASM pages; 0 when unset.
func (m Manifest) MemoryLimitPages() uint32 { return uint32(m.MemoryLimitMiB) * 16 }
