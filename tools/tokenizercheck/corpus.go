package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// writeCorpus writes n strings, one JSON string a line: the repository's
// own texts (docs, sources, test fixtures) cut at random, random Unicode
// from every plane and category, whitespace of every kind, digit runs,
// mixed scripts with emoji sequences and combining marks, contractions,
// the vocabularies' special tokens embedded in text, and empty and tiny
// strings. The same seed writes the same file.
func writeCorpus(path, root string, n int, seed uint64, specialDirs []string) error {
	texts, err := repoTexts(root)
	if err != nil {
		return err
	}
	if len(texts) == 0 {
		return fmt.Errorf("no texts under %s", root)
	}
	var specials []string
	for _, dir := range specialDirs {
		tok, err := tokenizer.Open(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			return err
		}
		for _, a := range tok.AddedTokens() {
			specials = append(specials, a.Content)
		}
	}
	g := &gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), texts: texts, specials: specials}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i := range n {
		s := g.next(i)
		if !utf8.ValidString(s) {
			return fmt.Errorf("corpus string %d is not UTF-8", i)
		}
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// repoTexts reads the repository's Markdown, Go sources and JSON test
// fixtures (their string values), in path order.
func repoTexts(root string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "third_party" || name == "bin" || name == "out" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".md", ".go", ".py", ".js":
			paths = append(paths, p)
		case ".json":
			if strings.Contains(p, "testdata") {
				paths = append(paths, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var texts []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if len(b) > 1<<20 || !utf8.Valid(b) {
			continue
		}
		if filepath.Ext(p) == ".json" {
			var v any
			if json.Unmarshal(b, &v) == nil {
				texts = append(texts, jsonStrings(v, nil)...)
			}
			continue
		}
		texts = append(texts, string(b))
	}
	return texts, nil
}

func jsonStrings(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		if len(x) > 1 {
			out = append(out, x)
		}
	case []any:
		for _, e := range x {
			out = jsonStrings(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = jsonStrings(x[k], out)
		}
	}
	return out
}

type gen struct {
	rng      *rand.Rand
	texts    []string
	specials []string
}

// spaces are white space of every kind, and characters near it that are
// not (zero-width space, joiners, BOM).
var spaces = []rune{' ', '\t', '\n', '\r', '\v', '\f', 0x85, 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
	0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
	0x200B, 0x200C, 0x200D, 0xFEFF, 0x180E, 0x1C, 0x1D, 0x1E, 0x1F}

// scripts are ranges of letters of many scripts.
var scripts = [][2]rune{{'a', 'z'}, {'A', 'Z'}, {0xC0, 0x24F}, {0x370, 0x3FF}, {0x400, 0x4FF}, {0x530, 0x58F},
	{0x5D0, 0x5EA}, {0x600, 0x6FF}, {0x900, 0x97F}, {0x980, 0x9FF}, {0xE00, 0xE7F}, {0x10A0, 0x10FF},
	{0x1100, 0x11FF}, {0x3040, 0x309F}, {0x30A0, 0x30FF}, {0x4E00, 0x9FFF}, {0xAC00, 0xD7A3}, {0x1E00, 0x1EFF},
	{0x20000, 0x2A6DF}, {0xFF00, 0xFFEF}, {0x1D400, 0x1D7FF}, {0x10400, 0x1044F}}

// marks are combining marks of several classes (canonical ordering and
// composition matter for NFC).
var marks = []rune{0x300, 0x301, 0x302, 0x303, 0x308, 0x30A, 0x323, 0x327, 0x328, 0x331, 0x334, 0x338,
	0x345, 0x35C, 0x360, 0x591, 0x5B0, 0x64B, 0x650, 0x93C, 0x94D, 0x9BC, 0xE31, 0xE48, 0x1AB0, 0x1DC0,
	0x20D0, 0x20E3, 0x302A, 0x3099, 0x309A, 0xFE0F, 0xFE0E, 0x1F3FB, 0x1F3FF, 0xE0020, 0x1161, 0x11A8}

var emoji = []string{"😀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷", "🇺🇸", "❤️", "🧑🏿‍🚀", "👩‍❤️‍💋‍👨", "1️⃣", "#️⃣",
	"🫠", "🥲", "🐈‍⬛", "⚽", "✅", "🧪", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"}

var contractions = []string{"'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL",
	"'Ll", "'d", "'D", "'ſ", "’s", "'", "''", "'x", "'st", "'sre", "'ll've"}

var punct = []string{".", ",", "!", "?", ";", ":", "-", "--", "...", "(", ")", "[", "]", "{", "}", "\"", "'",
	"/", "\\", "|", "@", "#", "$", "%", "^", "&", "*", "+", "=", "<", ">", "~", "`", "_", "«", "»", "“", "”",
	"„", "。", "、", "！", "？", "：", "；", "·", "—", "–", "…", "¿", "¡", "€", "£", "¥", "©", "®", "™", "°",
	"±", "×", "÷", "→", "⇒", "∀", "∑", "√", "∞", "≠", "≤", "≥", "♥", "★", "♪", "\u00ad", "\u2060"}

func (g *gen) pick(n int) int { return g.rng.IntN(n) }

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

// next makes string i; the kinds take turns at fixed shares.
func (g *gen) next(i int) string {
	switch k := i % 100; {
	case k < 2:
		return g.tiny()
	case k < 32:
		return g.fixture()
	case k < 50:
		return g.randomUnicode()
	case k < 60:
		return g.whitespace()
	case k < 68:
		return g.digits()
	case k < 84:
		return g.mixedScripts()
	case k < 88:
		return g.contractions()
	default:
		return g.withSpecials()
	}
}

func (g *gen) tiny() string {
	switch g.pick(4) {
	case 0:
		return ""
	case 1:
		return string(rune(g.pick(128)))
	case 2:
		return string(spaces[g.pick(len(spaces))])
	}
	return punct[g.pick(len(punct))]
}

// fixture cuts a random window out of a repository text: a line, a
// paragraph, or a span of up to a few thousand bytes.
func (g *gen) fixture() string {
	t := g.texts[g.pick(len(g.texts))]
	if t == "" {
		return t
	}
	var length int
	switch g.pick(4) {
	case 0:
		length = 1 + g.pick(40)
	case 1:
		length = 1 + g.pick(300)
	case 2:
		length = 1 + g.pick(3000)
	default:
		if g.chance(0.02) {
			length = len(t)
		} else {
			length = 1 + g.pick(1000)
		}
	}
	start := g.pick(len(t))
	end := min(len(t), start+length)
	for start > 0 && !utf8.RuneStart(t[start]) {
		start--
	}
	for end < len(t) && !utf8.RuneStart(t[end]) {
		end++
	}
	return t[start:end]
}

// randomRune picks a code point from any plane, or a member of a random
// general category, or an unassigned one.
func (g *gen) randomRune() rune {
	for {
		var r rune
		switch g.pick(4) {
		case 0: // any plane
			plane := rune(g.pick(17))
			r = plane<<16 | rune(g.pick(1<<16))
		case 1: // the BMP
			r = rune(g.pick(1 << 16))
		case 2: // a random category's member
			names := categoryNames
			t := unicode.Categories[names[g.pick(len(names))]]
			r = pickFromTable(g, t)
		default: // ASCII and Latin-1
			r = rune(g.pick(256))
		}
		if r >= 0xD800 && r <= 0xDFFF || r > unicode.MaxRune {
			continue
		}
		return r
	}
}

var categoryNames = func() []string {
	var out []string
	for name := range unicode.Categories {
		if len(name) == 2 && name != "Cs" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}()

func pickFromTable(g *gen, t *unicode.RangeTable) rune {
	n := len(t.R16) + len(t.R32)
	k := g.pick(n)
	if k < len(t.R16) {
		rg := t.R16[k]
		steps := (int(rg.Hi)-int(rg.Lo))/int(rg.Stride) + 1
		return rune(int(rg.Lo) + g.pick(steps)*int(rg.Stride))
	}
	rg := t.R32[k-len(t.R16)]
	steps := (int(rg.Hi)-int(rg.Lo))/int(rg.Stride) + 1
	return rune(int(rg.Lo) + g.pick(steps)*int(rg.Stride))
}

func (g *gen) randomUnicode() string {
	var b strings.Builder
	n := 1 + g.pick(40)
	for range n {
		switch g.pick(6) {
		case 0:
			b.WriteRune(spaces[g.pick(len(spaces))])
		case 1:
			b.WriteString(g.word())
		default:
			b.WriteRune(g.randomRune())
		}
	}
	return b.String()
}

func (g *gen) word() string {
	rg := scripts[g.pick(len(scripts))]
	var b strings.Builder
	for range 1 + g.pick(10) {
		b.WriteRune(rg[0] + rune(g.pick(int(rg[1]-rg[0]+1))))
	}
	return b.String()
}

func (g *gen) whitespace() string {
	var b strings.Builder
	for range 1 + g.pick(12) {
		run := 1 + g.pick(8)
		if g.chance(0.1) {
			run = 20 + g.pick(200)
		}
		same := g.chance(0.5)
		c := spaces[g.pick(len(spaces))]
		for range run {
			if !same {
				c = spaces[g.pick(len(spaces))]
			}
			b.WriteRune(c)
		}
		switch g.pick(4) {
		case 0:
			b.WriteString(g.word())
		case 1:
			b.WriteString(punct[g.pick(len(punct))])
		case 2:
			b.WriteString(g.number())
		}
	}
	return b.String()
}

// digitSets are decimal digits of several scripts, then other numbers.
var digitSets = []string{"0123456789", "٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "０１２３４５６７８９", "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗",
	"²³¹¼½¾⅓⅔", "ⅠⅡⅢⅣⅤⅫⅯ", "①②③⑩⑳", "〇一二三"}

func (g *gen) number() string {
	set := []rune(digitSets[0])
	if g.chance(0.3) {
		set = []rune(digitSets[g.pick(len(digitSets))])
	}
	var b strings.Builder
	n := 1 + g.pick(12)
	if g.chance(0.1) {
		n = 13 + g.pick(60)
	}
	for range n {
		b.WriteRune(set[g.pick(len(set))])
	}
	return b.String()
}

func (g *gen) digits() string {
	var b strings.Builder
	for range 1 + g.pick(8) {
		b.WriteString(g.number())
		switch g.pick(6) {
		case 0:
			b.WriteByte(' ')
		case 1:
			b.WriteString(punct[g.pick(len(punct))])
		case 2:
			b.WriteString(g.word())
		case 3:
			b.WriteString([]string{".", ",", "e-", "x", "%", "$", "/"}[g.pick(7)])
		}
	}
	return b.String()
}

func (g *gen) mixedScripts() string {
	var b strings.Builder
	for range 1 + g.pick(16) {
		switch g.pick(7) {
		case 0, 1:
			b.WriteString(g.word())
		case 2:
			b.WriteString(emoji[g.pick(len(emoji))])
		case 3: // a base and combining marks, in any order
			b.WriteString(g.word())
			for range 1 + g.pick(4) {
				b.WriteRune(marks[g.pick(len(marks))])
			}
		case 4:
			b.WriteRune(spaces[g.pick(3)])
		case 5:
			b.WriteString(punct[g.pick(len(punct))])
		default: // Hangul jamo that compose, and precomposed letters
			b.WriteString([]string{"\u1100\u1161", "\u1100\u1161\u11A8", "A\u030A", "Å", "Å", "e\u0301", "é",
				"\u0041\u0323\u0302", "\u0041\u0302\u0323", "ﬁ", "ǅ", "Ω", "Ω", "\u0958", "\u2ADC", "\u1E9B\u0323"}[g.pick(16)])
		}
	}
	return b.String()
}

func (g *gen) contractions() string {
	var b strings.Builder
	for range 1 + g.pick(8) {
		if g.chance(0.7) {
			b.WriteString(g.word())
		}
		b.WriteString(contractions[g.pick(len(contractions))])
		if g.chance(0.5) {
			b.WriteRune(spaces[g.pick(3)])
		}
	}
	return b.String()
}

// withSpecials embeds special tokens (whole, cut short, adjacent, with
// spaces around) in fixture text.
func (g *gen) withSpecials() string {
	if len(g.specials) == 0 {
		return g.fixture()
	}
	var b strings.Builder
	for range 1 + g.pick(6) {
		sp := g.specials[g.pick(len(g.specials))]
		switch g.pick(5) {
		case 0:
			b.WriteString(g.fixture())
		case 1:
			cut := g.pick(len(sp) + 1)
			for cut < len(sp) && !utf8.RuneStart(sp[cut]) {
				cut++
			}
			b.WriteString(sp[:cut])
			continue
		case 2:
			b.WriteRune(spaces[g.pick(len(spaces))])
		}
		b.WriteString(sp)
		if g.chance(0.3) {
			b.WriteRune(spaces[g.pick(len(spaces))])
		}
		if g.chance(0.5) {
			b.WriteString(g.word())
		}
	}
	return b.String()
}
