package punkt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neurosnap/sentences/data"
)

// Params are a trained Punkt model's parameters. Types are lower-case
// words, "##number##" standing in for numbers.
type Params struct {
	// Abbrev holds the abbreviations' types, less their final period.
	Abbrev map[string]bool
	// Collocations holds pairs of types, the first of which ends in a
	// period that breaks no sentence before the second.
	Collocations map[[2]string]bool
	// SentStarters holds the types that often start sentences.
	SentStarters map[string]bool
	// Ortho holds the orthographic contexts each type was seen in, a sum
	// of flags (bits 1 to 6).
	Ortho map[string]int
}

// The files of NLTK's punkt_tab/<language> directory (NLTK 3.9 and
// later).
const (
	AbbrevFile       = "abbrev_types.txt"
	CollocationsFile = "collocations.tab"
	SentStartersFile = "sent_starters.txt"
	OrthoFile        = "ortho_context.tab"
)

// ErrParams is wrapped by the errors of unreadable or malformed
// parameters.
var ErrParams = errors.New("punkt parameters")

// ReadTab reads NLTK's punkt_tab/<language> directory: abbrev_types.txt
// and sent_starters.txt hold one type a line, collocations.tab two types
// a line and ortho_context.tab a type and its flags a line, separated by
// a tab. A line is taken as it is (a type may hold spaces: ". . " is an
// English abbreviation), less a final carriage return; a final newline
// is optional.
//
// # Errors
//
// Wrapping [ErrParams]: dir is not a directory, a file is missing or
// malformed (naming the file and the line).
func ReadTab(dir string) (*Params, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a punkt_tab/<language> directory (%s, %s, %s, %s)",
			ErrParams, dir, AbbrevFile, CollocationsFile, SentStartersFile, OrthoFile)
	}
	p := &Params{}
	var errs []error
	for _, f := range []struct {
		name  string
		parse func(*Params, []byte) error
	}{
		{AbbrevFile, func(p *Params, b []byte) (err error) { p.Abbrev, err = parseSet(b); return err }},
		{CollocationsFile, func(p *Params, b []byte) (err error) { p.Collocations, err = parseCollocations(b); return err }},
		{SentStartersFile, func(p *Params, b []byte) (err error) { p.SentStarters, err = parseSet(b); return err }},
		{OrthoFile, func(p *Params, b []byte) (err error) { p.Ortho, err = parseOrtho(b); return err }},
	} {
		path := filepath.Join(dir, f.name)
		b, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrParams, err))
			continue
		}
		if err := f.parse(p, b); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// lines splits a file into its lines, checking that it is UTF-8 and has
// no empty line.
func lines(b []byte) ([]string, error) {
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%w: not UTF-8", ErrParams)
	}
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil, nil
	}
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
		if ls[i] == "" {
			return nil, fmt.Errorf("%w: line %d is empty", ErrParams, i+1)
		}
	}
	return ls, nil
}

func parseSet(b []byte) (map[string]bool, error) {
	ls, err := lines(b)
	if err != nil {
		return nil, err
	}
	m := make(map[string]bool, len(ls))
	for i, l := range ls {
		if strings.ContainsRune(l, '\t') {
			return nil, fmt.Errorf("%w: line %d: a type holds no tab", ErrParams, i+1)
		}
		m[l] = true
	}
	return m, nil
}

// fields splits a line into n tab-separated, non-empty fields.
func fields(l string, i, n int) ([]string, error) {
	f := strings.Split(l, "\t")
	if len(f) != n || strings.Contains(l, "\t\t") || f[0] == "" || f[n-1] == "" {
		return nil, fmt.Errorf("%w: line %d: want %d tab-separated fields, got %q", ErrParams, i+1, n, l)
	}
	return f, nil
}

func parseCollocations(b []byte) (map[[2]string]bool, error) {
	ls, err := lines(b)
	if err != nil {
		return nil, err
	}
	m := make(map[[2]string]bool, len(ls))
	for i, l := range ls {
		f, err := fields(l, i, 2)
		if err != nil {
			return nil, err
		}
		m[[2]string{f[0], f[1]}] = true
	}
	return m, nil
}

func parseOrtho(b []byte) (map[string]int, error) {
	ls, err := lines(b)
	if err != nil {
		return nil, err
	}
	m := make(map[string]int, len(ls))
	for i, l := range ls {
		f, err := fields(l, i, 2)
		if err != nil {
			return nil, err
		}
		v, err := strconv.Atoi(f[1])
		if err != nil || v < 0 || v > orthoUC|orthoLC|1 {
			return nil, fmt.Errorf("%w: line %d: flags %q: want an integer from 0 to 127", ErrParams, i+1, f[1])
		}
		if _, dup := m[f[0]]; dup {
			return nil, fmt.Errorf("%w: line %d: type %q listed twice", ErrParams, i+1, f[0])
		}
		m[f[0]] = v
	}
	return m, nil
}

// englishAsset is the English model's file in the data package of
// github.com/neurosnap/sentences.
const englishAsset = "data/english.json"

// English returns the English parameters of NLTK's Punkt model as
// github.com/neurosnap/sentences v1.1.2 (MIT licence, copyright Eric
// Bower) ships them in data/english.json: 156 abbreviations, 37
// collocations, 40 sentence starters and 20366 orthographic contexts,
// trained on the Wall Street Journal.
//
// # Errors
//
// Wrapping [ErrParams], when the module's file does not parse (a changed
// module version).
func English() (*Params, error) {
	b, err := data.Asset(englishAsset)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrParams, englishAsset, err)
	}
	return parseSentencesJSON(b)
}

// parseSentencesJSON reads the neurosnap/sentences form: sets as objects
// whose keys are the members, collocations as "first,second" keys.
func parseSentencesJSON(b []byte) (*Params, error) {
	var f struct {
		Ortho        map[string]int `json:"OrthoContext"`
		Collocations map[string]int `json:"Collocations"`
		Abbrev       map[string]int `json:"AbbrevTypes"`
		SentStarters map[string]int `json:"SentStarters"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrParams, englishAsset, err)
	}
	set := func(m map[string]int) map[string]bool {
		s := make(map[string]bool, len(m))
		for k := range m {
			s[k] = true
		}
		return s
	}
	p := &Params{Abbrev: set(f.Abbrev), SentStarters: set(f.SentStarters), Ortho: f.Ortho,
		Collocations: make(map[[2]string]bool, len(f.Collocations))}
	for k := range f.Collocations {
		a, b, ok := strings.Cut(k, ",")
		if !ok || strings.Contains(b, ",") {
			return nil, fmt.Errorf("%w: %s: collocation %q is not two comma-separated types", ErrParams, englishAsset, k)
		}
		p.Collocations[[2]string{a, b}] = true
	}
	return p, nil
}
