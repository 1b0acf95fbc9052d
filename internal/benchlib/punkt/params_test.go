package punkt

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTab writes p as NLTK 3.9's save_punkt_params does: sorted lines
// joined by newlines, no final newline.
func writeTab(t *testing.T, dir string, p *Params) {
	t.Helper()
	write := func(name string, ls []string) {
		slices.Sort(ls)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(ls, "\n")), 0o644))
	}
	var abbrev, starters, colls, ortho []string
	for k := range p.Abbrev {
		abbrev = append(abbrev, k)
	}
	for k := range p.SentStarters {
		starters = append(starters, k)
	}
	for k := range p.Collocations {
		colls = append(colls, k[0]+"\t"+k[1])
	}
	for k, v := range p.Ortho {
		ortho = append(ortho, fmt.Sprintf("%s\t%d", k, v))
	}
	write(AbbrevFile, abbrev)
	write(SentStartersFile, starters)
	write(CollocationsFile, colls)
	write(OrthoFile, ortho)
}

// TestEnglish: the counts of NLTK's English model, and the types the
// tokenizer's decisions above rest on.
func TestEnglish(t *testing.T) {
	t.Parallel()
	p, err := English()
	require.NoError(t, err)
	assert.Len(t, p.Abbrev, 156)
	assert.Len(t, p.Collocations, 37)
	assert.Len(t, p.SentStarters, 40)
	assert.Len(t, p.Ortho, 20366)
	assert.True(t, p.Abbrev["u.s"])
	assert.True(t, p.Abbrev[". . "], "the spaced ellipsis, less its last period")
	assert.True(t, p.Collocations[[2]string{"##number##", "international"}])
	assert.True(t, p.SentStarters["however"])
	assert.Equal(t, orthoBegUC|orthoMidUC|orthoUnkUC|orthoMidLC|orthoUnkLC, p.Ortho["market"])
}

// TestReadTab: English's parameters written as NLTK's punkt_tab files
// read back the same; malformed files are errors naming file and line.
func TestReadTab(t *testing.T) {
	t.Parallel()
	en, err := English()
	require.NoError(t, err)
	dir := t.TempDir()
	writeTab(t, dir, en)
	p, err := ReadTab(dir)
	require.NoError(t, err)
	assert.Equal(t, en, p)

	tests := []struct {
		name, file, body, want string
	}{
		{name: "empty line", file: AbbrevFile, body: "dr\n\nmr\n", want: "abbrev_types.txt: punkt parameters: line 2 is empty"},
		{name: "tab in a type", file: SentStartersFile, body: "the\tend", want: "line 1: a type holds no tab"},
		{name: "one field", file: CollocationsFile, body: "b\tsmith\nj.", want: `line 2: want 2 tab-separated fields, got "j."`},
		{name: "three fields", file: OrthoFile, body: "a\t2\t3", want: "want 2 tab-separated fields"},
		{name: "flags not a number", file: OrthoFile, body: "a\tx", want: `line 1: flags "x": want an integer from 0 to 127`},
		{name: "flags out of range", file: OrthoFile, body: "a\t128", want: `flags "128"`},
		{name: "type twice", file: OrthoFile, body: "a\t2\na\t4\n", want: `line 2: type "a" listed twice`},
		{name: "not utf-8", file: AbbrevFile, body: "\xff", want: "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeTab(t, dir, &Params{})
			require.NoError(t, os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.body), 0o644))
			_, err := ReadTab(dir)
			require.ErrorIs(t, err, ErrParams)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err = ReadTab(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, ErrParams)
	assert.ErrorContains(t, err, "missing is not a punkt_tab/<language> directory")
	require.NoError(t, os.Remove(filepath.Join(dir, SentStartersFile)))
	_, err = ReadTab(dir)
	require.ErrorIs(t, err, ErrParams)
	assert.ErrorContains(t, err, "open "+filepath.Join(dir, SentStartersFile))

	// Windows line ends and a final newline are taken.
	dir = t.TempDir()
	writeTab(t, dir, &Params{})
	require.NoError(t, os.WriteFile(filepath.Join(dir, OrthoFile), []byte("a\t2\r\nb\t4\r\n"), 0o644))
	p, err = ReadTab(dir)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"a": 2, "b": 4}, p.Ortho)
}

// FuzzParseTab: no file content makes a parser panic, and what parses
// holds one entry per line.
func FuzzParseTab(f *testing.F) {
	for _, s := range []string{"dr\nmr", "b\tsmith\n##number##\tinternational\n", "market\t110\r\nthe\t126", "", "\n", "a\t\tb", ". . \nu.s"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n := len(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
		if s, err := parseSet(b); err == nil && len(s) > n {
			t.Fatalf("%d types from %d lines", len(s), n)
		}
		if c, err := parseCollocations(b); err == nil && len(c) > n {
			t.Fatalf("%d collocations from %d lines", len(c), n)
		}
		if o, err := parseOrtho(b); err == nil {
			assert.LessOrEqual(t, len(o), n)
			for k, v := range o {
				assert.NotEmpty(t, k)
				assert.True(t, v >= 0 && v < 128, "flags %d", v)
			}
		}
	})
}
