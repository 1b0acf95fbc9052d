package tokenizer

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers' and normalizers' patterns are Oniguruma regular
// expressions (the engine Hugging Face's tokenizers links), and the ones
// models use need what Go's regexp lacks: lookahead (`\s+(?!\S)`) and
// Oniguruma's own classes (`\s` is Unicode White_Space, `\p{L}` follows the
// Unicode version of its tables). regex.go is a small backtracking matcher
// for the part of that syntax tokenizer files use: literals and escapes,
// classes with ranges, \p{..}/\P{..}, \s \S \d \D \w \W and `.`;
// alternation, groups ((...), (?:...), (?i:...), (?-i:...), inline (?i)),
// lookahead ((?=...), (?!...)), atomic groups ((?>...)); the quantifiers
// ? * + {n} {n,} {n,m} {,m}, lazy (??, *?, +?) and possessive (?+, *+, ++);
// the anchors ^ $ (lines) and \A \z \Z. A construct outside that subset is
// an error, never a silent difference. Matching is leftmost, and among
// the matches at one position the one a backtracking engine finds first,
// as Oniguruma's.

// regex is a compiled pattern. It is immutable and safe for concurrent use.
type regex struct {
	src  string
	prog *program
}

type opcode uint8

const (
	opClass  opcode = iota // one rune of cls
	opSplit                // try x, then y
	opJmp                  // go to x
	opMatch                // success
	opLook                 // lookahead sub (neg: negative)
	opAtomic               // match sub once, never backtrack into it
	opAssert               // zero-width assertion kind
)

type assertKind uint8

const (
	assertLineStart assertKind = iota // ^
	assertLineEnd                     // $
	assertTextStart                   // \A
	assertTextEnd                     // \z
	assertTextEndNL                   // \Z
)

type inst struct {
	op   opcode
	neg  bool
	kind assertKind
	x, y int
	cls  *charClass
	sub  *program
}

type program struct {
	insts []inst
}

// thread is a backtracking point: resume at pc with the input at pos.
type thread struct {
	pc, pos int
}

// compileRegex parses and compiles an Oniguruma pattern.
func compileRegex(src string) (*regex, error) {
	p := &parser{src: src}
	n, err := p.parseAlt(false)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", src, err)
	}
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("pattern %q: unmatched ) at offset %d", src, p.pos)
	}
	if size := nodeSize(n); size > maxProgram {
		return nil, fmt.Errorf("pattern %q: %d or more instructions once its counted repeats are expanded, more than %d", src, size, maxProgram)
	}
	return &regex{src: src, prog: compileNode(n)}, nil
}

// nodeSize is how many instructions n compiles to (sub-programs
// included), saturating past maxProgram.
func nodeSize(n *node) int {
	sat := func(x int) int { return min(x, maxProgram+1) }
	switch n.kind {
	case nClass, nAssert:
		return 1
	case nConcat, nAlt:
		total := 0
		for _, sub := range n.subs {
			total = sat(total + nodeSize(sub) + 2)
		}
		return total
	case nRepeat:
		body := nodeSize(n.subs[0])
		copies := n.min
		if n.max == -1 {
			copies++
		} else {
			copies = n.max
		}
		return sat(body*copies + copies + 1)
	}
	return sat(nodeSize(n.subs[0]) + 2)
}

// maxProgram bounds a compiled pattern's instructions, sub-programs
// included.
const maxProgram = 1 << 14

// A run that takes more than memoBase + memoPerByte x (the input left)
// steps remembers the states it has explored from then on: a state
// explored once cannot match later in the same run, so each is explored
// at most once and a pathological pattern costs at most instructions x
// input, never exponential time. The tokenizers' own patterns take a few
// steps per byte and never get there.
const (
	memoBase    = 1 << 12
	memoPerByte = 16
)

// findAll calls fn with the byte offsets of each successive match in s, as
// Oniguruma's iterator in the onig crate yields them: leftmost matches, an
// empty match right after the previous match skipped.
func (re *regex) findAll(s string, stack *[]thread, fn func(start, end int)) {
	last, lastMatchEnd := 0, -1
	for last <= len(s) {
		start, end, ok := re.search(s, last, stack)
		if !ok {
			return
		}
		if start == end && end == lastMatchEnd {
			if last >= len(s) {
				return
			}
			_, size := utf8.DecodeRuneInString(s[last:])
			last += size
			continue
		}
		last, lastMatchEnd = end, end
		fn(start, end)
	}
}

// search finds the leftmost match starting at or after from. The runs
// from successive positions share one budget and, past it, one memory of
// explored states: every state a failed run explored fails from any start.
func (re *regex) search(s string, from int, stack *[]thread) (start, end int, ok bool) {
	m := memo{from: from, width: len(s) - from + 1}
	m.budget = memoBase + memoPerByte*m.width
	for at := from; at <= len(s); {
		if e, ok := re.prog.run(s, at, stack, &m); ok {
			return at, e, true
		}
		if at == len(s) {
			break
		}
		_, size := utf8.DecodeRuneInString(s[at:])
		at += size
	}
	return 0, 0, false
}

// memo counts a search's steps and, once they pass its budget, remembers
// the (pc, position) states explored.
type memo struct {
	steps, budget int
	from, width   int
	seen          []uint64
}

// visit reports whether state (pc, at) was explored before, marking it.
func (m *memo) visit(pc, at, insts int) bool {
	m.steps++
	if m.steps <= m.budget {
		return false
	}
	if m.seen == nil {
		m.seen = make([]uint64, (insts*m.width+63)/64)
	}
	k := pc*m.width + at - m.from
	if m.seen[k/64]&(1<<(k%64)) != 0 {
		return true
	}
	m.seen[k/64] |= 1 << (k % 64)
	return false
}

// run matches the program anchored at pos and returns where the first
// match (in backtracking order) ends.
func (p *program) run(s string, pos int, stack *[]thread, m *memo) (int, bool) {
	base := len(*stack)
	defer func() { *stack = (*stack)[:base] }()
	*stack = append(*stack, thread{0, pos})
	for len(*stack) > base {
		t := (*stack)[len(*stack)-1]
		*stack = (*stack)[:len(*stack)-1]
		pc, at := t.pc, t.pos
	thread:
		for {
			if m.visit(pc, at, len(p.insts)) {
				break thread
			}
			in := &p.insts[pc]
			switch in.op {
			case opClass:
				if at >= len(s) {
					break thread
				}
				r, size := rune(s[at]), 1
				if r >= utf8.RuneSelf {
					r, size = utf8.DecodeRuneInString(s[at:])
				}
				if !in.cls.matches(r) {
					break thread
				}
				at += size
				pc++
			case opSplit:
				*stack = append(*stack, thread{in.y, at})
				pc = in.x
			case opJmp:
				pc = in.x
			case opMatch:
				return at, true
			case opLook:
				if _, ok := in.sub.runAt(s, at, stack); ok == in.neg {
					break thread
				}
				pc++
			case opAtomic:
				e, ok := in.sub.runAt(s, at, stack)
				if !ok {
					break thread
				}
				at = e
				pc++
			case opAssert:
				if !assertAt(in.kind, s, at) {
					break thread
				}
				pc++
			}
		}
	}
	return 0, false
}

// runAt runs a sub-program (lookahead, atomic group) at pos with a memory
// of its own.
func (p *program) runAt(s string, pos int, stack *[]thread) (int, bool) {
	m := memo{from: pos, width: len(s) - pos + 1}
	m.budget = memoBase + memoPerByte*m.width
	return p.run(s, pos, stack, &m)
}

func assertAt(k assertKind, s string, at int) bool {
	switch k {
	case assertLineStart:
		return at == 0 || s[at-1] == '\n'
	case assertLineEnd:
		return at == len(s) || s[at] == '\n'
	case assertTextStart:
		return at == 0
	case assertTextEnd:
		return at == len(s)
	default: // assertTextEndNL
		return at == len(s) || at == len(s)-1 && s[at] == '\n'
	}
}

// A node is the parsed pattern.
type node struct {
	kind     nodeKind
	cls      *charClass
	subs     []*node
	min, max int // repeat; max -1: unbounded
	greedy   bool
	neg      bool
	assert   assertKind
}

type nodeKind uint8

const (
	nClass nodeKind = iota
	nConcat
	nAlt
	nRepeat
	nPossessive
	nLook
	nAtomic
	nAssert
)

// maxRepeat bounds {n,m} counts: each is expanded in the program.
const maxRepeat = 1000

type parser struct {
	src  string
	pos  int
	fold bool // (?i) in force
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) more() bool { return p.pos < len(p.src) }

func (p *parser) peek() rune {
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return r
}

func (p *parser) next() rune {
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += size
	return r
}

// parseAlt parses alternatives up to the end or a ) (left unread when
// inGroup).
func (p *parser) parseAlt(inGroup bool) (*node, error) {
	saved := p.fold
	defer func() { p.fold = saved }()
	alt := &node{kind: nAlt}
	seq := &node{kind: nConcat}
	for p.more() {
		c := p.peek()
		if c == ')' {
			if !inGroup {
				return nil, p.errorf("unmatched )")
			}
			break
		}
		if c == '|' {
			p.next()
			alt.subs = append(alt.subs, seq)
			seq = &node{kind: nConcat}
			continue
		}
		atom, err := p.parseAtom()
		if err != nil {
			return nil, err
		}
		if atom == nil { // an inline flag group
			continue
		}
		atom, err = p.parseQuantifier(atom)
		if err != nil {
			return nil, err
		}
		seq.subs = append(seq.subs, atom)
	}
	alt.subs = append(alt.subs, seq)
	if len(alt.subs) == 1 {
		return seq, nil
	}
	return alt, nil
}

func (p *parser) parseQuantifier(atom *node) (*node, error) {
	for p.more() {
		min, max := 0, 0
		start := p.pos
		switch p.peek() {
		case '?':
			p.next()
			min, max = 0, 1
		case '*':
			p.next()
			min, max = 0, -1
		case '+':
			p.next()
			min, max = 1, -1
		case '{':
			var ok bool
			min, max, ok = p.parseBraces()
			if !ok { // a literal {
				return atom, nil
			}
		default:
			return atom, nil
		}
		if atom.kind == nAssert || atom.kind == nLook {
			return nil, p.errorf("quantifier after an assertion")
		}
		rep := &node{kind: nRepeat, subs: []*node{atom}, min: min, max: max, greedy: true}
		if p.more() {
			switch p.peek() {
			case '?':
				p.next()
				rep.greedy = false
			case '+':
				if p.src[start] != '{' { // Ruby syntax: {n,m}+ is a repeat of a repeat
					p.next()
					rep = &node{kind: nPossessive, subs: []*node{rep}}
				}
			}
		}
		if nullable(atom) && max == -1 {
			return nil, p.errorf("unbounded repetition of an expression that can match empty")
		}
		atom = rep
	}
	return atom, nil
}

// parseBraces reads {n}, {n,}, {n,m} or {,m}; ok is false (nothing read)
// when the brace is not a valid interval, which Oniguruma takes literally.
func (p *parser) parseBraces() (min, max int, ok bool) {
	end := strings.IndexByte(p.src[p.pos:], '}')
	if end < 0 {
		return 0, 0, false
	}
	body := p.src[p.pos+1 : p.pos+end]
	lo, hi, comma := strings.Cut(body, ",")
	num := func(s string) (int, bool) {
		if s == "" || len(s) > 4 {
			return 0, false
		}
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0 && n <= maxRepeat && s[0] != '+' && s[0] != '-'
	}
	switch {
	case !comma:
		n, ok := num(lo)
		if !ok {
			return 0, 0, false
		}
		min, max = n, n
	case lo == "" && hi == "":
		return 0, 0, false
	case lo == "":
		n, ok := num(hi)
		if !ok {
			return 0, 0, false
		}
		min, max = 0, n
	default:
		n, ok := num(lo)
		if !ok {
			return 0, 0, false
		}
		min, max = n, -1
		if hi != "" {
			m, ok := num(hi)
			if !ok || m < n {
				return 0, 0, false
			}
			max = m
		}
	}
	p.pos += end + 1
	return min, max, true
}

func nullable(n *node) bool {
	switch n.kind {
	case nClass:
		return false
	case nConcat:
		for _, s := range n.subs {
			if !nullable(s) {
				return false
			}
		}
		return true
	case nAlt:
		for _, s := range n.subs {
			if nullable(s) {
				return true
			}
		}
		return false
	case nRepeat:
		return n.min == 0 || nullable(n.subs[0])
	case nPossessive, nAtomic:
		return nullable(n.subs[0])
	}
	return true // assertions and lookahead
}

// parseAtom parses one atom; nil, nil for an inline flag group like (?i).
func (p *parser) parseAtom() (*node, error) {
	c := p.next()
	switch c {
	case '(':
		return p.parseGroup()
	case '[':
		cls, err := p.parseClass()
		if err != nil {
			return nil, err
		}
		return p.classNode(cls), nil
	case '.':
		return p.classNode(&charClass{negate: true, ranges: []runeRange{{'\n', '\n'}}}), nil
	case '^':
		return &node{kind: nAssert, assert: assertLineStart}, nil
	case '$':
		return &node{kind: nAssert, assert: assertLineEnd}, nil
	case '\\':
		return p.parseEscape()
	case '*', '+', '?':
		return nil, p.errorf("quantifier %q with nothing to repeat", c)
	case utf8.RuneError:
		return nil, p.errorf("invalid UTF-8")
	}
	return p.literal(c), nil
}

func (p *parser) literal(c rune) *node {
	return p.classNode(&charClass{ranges: []runeRange{{c, c}}})
}

func (p *parser) classNode(cls *charClass) *node {
	cls.fold = cls.fold || p.fold
	cls.prepare()
	return &node{kind: nClass, cls: cls}
}

func (p *parser) parseGroup() (*node, error) {
	kind := nConcat
	neg := false
	if strings.HasPrefix(p.src[p.pos:], "?") {
		p.next()
		if !p.more() {
			return nil, p.errorf("unterminated group")
		}
		switch c := p.next(); c {
		case ':':
		case '=':
			kind = nLook
		case '!':
			kind, neg = nLook, true
		case '>':
			kind = nAtomic
		case '<':
			return nil, p.errorf("lookbehind and named groups are not supported")
		case 'i', '-':
			on := c == 'i'
			if c == '-' {
				if !p.more() || p.next() != 'i' {
					return nil, p.errorf("only the i flag is supported")
				}
			}
			if !p.more() {
				return nil, p.errorf("unterminated group")
			}
			switch p.next() {
			case ')': // (?i): to the end of the enclosing group
				p.fold = on
				return nil, nil
			case ':':
				saved := p.fold
				p.fold = on
				n, err := p.parseAlt(true)
				p.fold = saved
				if err != nil {
					return nil, err
				}
				if !p.more() {
					return nil, p.errorf("missing )")
				}
				p.next()
				return n, nil
			default:
				return nil, p.errorf("only the i flag is supported")
			}
		default:
			return nil, p.errorf("group (?%c is not supported", c)
		}
	}
	n, err := p.parseAlt(true)
	if err != nil {
		return nil, err
	}
	if !p.more() {
		return nil, p.errorf("missing )")
	}
	p.next()
	switch kind {
	case nLook:
		return &node{kind: nLook, subs: []*node{n}, neg: neg}, nil
	case nAtomic:
		return &node{kind: nAtomic, subs: []*node{n}}, nil
	}
	return n, nil
}

// parseEscape reads what follows a backslash outside a class.
func (p *parser) parseEscape() (*node, error) {
	if !p.more() {
		return nil, p.errorf("trailing backslash")
	}
	switch p.peek() {
	case 'A':
		p.next()
		return &node{kind: nAssert, assert: assertTextStart}, nil
	case 'z':
		p.next()
		return &node{kind: nAssert, assert: assertTextEnd}, nil
	case 'Z':
		p.next()
		return &node{kind: nAssert, assert: assertTextEndNL}, nil
	}
	cls, r, err := p.parseClassEscape()
	if err != nil {
		return nil, err
	}
	if cls != nil {
		return p.classNode(cls), nil
	}
	return p.literal(r), nil
}

// parseClassEscape reads an escape valid both in and out of a class: a
// class (\s, \p{L}, ...) or a single rune.
func (p *parser) parseClassEscape() (*charClass, rune, error) {
	c := p.next()
	switch c {
	case 's', 'S':
		return &charClass{props: []prop{{whiteSpace, c == 'S'}}}, 0, nil
	case 'd', 'D':
		return &charClass{props: []prop{{category("Nd"), c == 'D'}}}, 0, nil
	case 'w', 'W':
		return &charClass{props: []prop{{wordTable, c == 'W'}}}, 0, nil
	case 'p', 'P':
		t, neg, err := p.parseProperty()
		if err != nil {
			return nil, 0, err
		}
		return &charClass{props: []prop{{t, neg != (c == 'P')}}}, 0, nil
	case 't':
		return nil, '\t', nil
	case 'n':
		return nil, '\n', nil
	case 'r':
		return nil, '\r', nil
	case 'f':
		return nil, '\f', nil
	case 'v':
		return nil, '\v', nil
	case 'a':
		return nil, '\a', nil
	case 'e':
		return nil, 0x1B, nil
	case 'x':
		if p.more() && p.peek() == '{' {
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, 0, p.errorf("unterminated \\x{")
			}
			r, err := hexRune(p.src[p.pos+1 : p.pos+end])
			if err != nil {
				return nil, 0, p.errorf("\\x{%s}: %v", p.src[p.pos+1:p.pos+end], err)
			}
			p.pos += end + 1
			return nil, r, nil
		}
		n := 0
		for n < 2 && p.pos+n < len(p.src) && isHex(p.src[p.pos+n]) {
			n++
		}
		if n == 0 {
			return nil, 0, p.errorf("\\x without hex digits")
		}
		r, _ := hexRune(p.src[p.pos : p.pos+n])
		p.pos += n
		return nil, r, nil
	case 'u':
		if p.pos+4 > len(p.src) {
			return nil, 0, p.errorf("short \\u escape")
		}
		r, err := hexRune(p.src[p.pos : p.pos+4])
		if err != nil {
			return nil, 0, p.errorf("\\u%s: %v", p.src[p.pos:p.pos+4], err)
		}
		p.pos += 4
		return nil, r, nil
	case utf8.RuneError:
		return nil, 0, p.errorf("invalid UTF-8")
	}
	if c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return nil, 0, p.errorf("escape \\%c is not supported", c)
	}
	return nil, c, nil
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

func hexRune(s string) (rune, error) {
	if s == "" || len(s) > 8 {
		return 0, errors.New("want 1 to 8 hex digits")
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return 0, errors.New("not hex")
		}
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || v > unicode.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return 0, errors.New("not a Unicode scalar value")
	}
	return rune(v), nil
}

// parseProperty reads {Name} or {^Name} after \p.
func (p *parser) parseProperty() (*unicode.RangeTable, bool, error) {
	if !p.more() || p.peek() != '{' {
		return nil, false, p.errorf("\\p without {name}")
	}
	end := strings.IndexByte(p.src[p.pos:], '}')
	if end < 0 {
		return nil, false, p.errorf("unterminated \\p{")
	}
	name := p.src[p.pos+1 : p.pos+end]
	p.pos += end + 1
	neg := strings.HasPrefix(name, "^")
	name = strings.TrimPrefix(name, "^")
	t := property(name)
	if t == nil {
		return nil, false, p.errorf("unknown or unsupported property \\p{%s}", name)
	}
	return t, neg, nil
}

// classEscape reads an escape inside a class, after its backslash.
func (p *parser) classEscape() (*charClass, rune, error) {
	if !p.more() {
		return nil, 0, p.errorf("trailing backslash")
	}
	return p.parseClassEscape()
}

// parseClass parses a bracket expression after its [.
func (p *parser) parseClass() (*charClass, error) {
	cls := &charClass{}
	if p.more() && p.peek() == '^' {
		p.next()
		cls.negate = true
	}
	first := true
	for {
		if !p.more() {
			return nil, p.errorf("unterminated [")
		}
		c := p.next()
		if c == ']' && !first {
			return cls, nil
		}
		first = false
		var lo rune
		switch c {
		case '[':
			if strings.HasPrefix(p.src[p.pos:], ":") {
				return nil, p.errorf("POSIX bracket classes are not supported")
			}
			sub, err := p.parseClass()
			if err != nil {
				return nil, err
			}
			cls.subs = append(cls.subs, sub)
			continue
		case '&':
			if strings.HasPrefix(p.src[p.pos:], "&") {
				return nil, p.errorf("class intersection && is not supported")
			}
			lo = c
		case '\\':
			sub, r, err := p.classEscape()
			if err != nil {
				return nil, err
			}
			if sub != nil {
				cls.props = append(cls.props, sub.props...)
				continue
			}
			lo = r
		case utf8.RuneError:
			return nil, p.errorf("invalid UTF-8")
		default:
			lo = c
		}
		hi := lo
		if strings.HasPrefix(p.src[p.pos:], "-") && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			p.next()
			c := p.next()
			switch c {
			case '\\':
				sub, r, err := p.classEscape()
				if err != nil {
					return nil, err
				}
				if sub != nil {
					return nil, p.errorf("a class escape cannot end a range")
				}
				hi = r
			case '[':
				return nil, p.errorf("a class cannot end a range")
			default:
				hi = c
			}
			if hi < lo {
				return nil, p.errorf("empty range %q-%q", lo, hi)
			}
		}
		cls.ranges = append(cls.ranges, runeRange{lo, hi})
	}
}

// compileNode turns a parsed pattern into a program.
func compileNode(n *node) *program {
	c := &compiler{}
	c.emit(n)
	c.add(inst{op: opMatch})
	return &program{insts: c.insts}
}

type compiler struct {
	insts []inst
}

func (c *compiler) add(in inst) int {
	c.insts = append(c.insts, in)
	return len(c.insts) - 1
}

func (c *compiler) emit(n *node) {
	switch n.kind {
	case nClass:
		c.add(inst{op: opClass, cls: n.cls})
	case nConcat:
		for _, s := range n.subs {
			c.emit(s)
		}
	case nAlt:
		var jumps []int
		for i, s := range n.subs {
			if i < len(n.subs)-1 {
				split := c.add(inst{op: opSplit})
				c.insts[split].x = len(c.insts)
				c.emit(s)
				jumps = append(jumps, c.add(inst{op: opJmp}))
				c.insts[split].y = len(c.insts)
			} else {
				c.emit(s)
			}
		}
		for _, j := range jumps {
			c.insts[j].x = len(c.insts)
		}
	case nRepeat:
		body := n.subs[0]
		for range n.min {
			c.emit(body)
		}
		if n.max == -1 {
			loop := c.add(inst{op: opSplit})
			c.emit(body)
			c.add(inst{op: opJmp, x: loop})
			c.branch(loop, loop+1, len(c.insts), n.greedy)
			return
		}
		var splits []int
		for range n.max - n.min {
			s := c.add(inst{op: opSplit})
			splits = append(splits, s)
			c.emit(body)
		}
		for _, s := range splits {
			c.branch(s, s+1, len(c.insts), n.greedy)
		}
	case nPossessive, nAtomic:
		c.add(inst{op: opAtomic, sub: compileNode(n.subs[0])})
	case nLook:
		c.add(inst{op: opLook, neg: n.neg, sub: compileNode(n.subs[0])})
	case nAssert:
		c.add(inst{op: opAssert, kind: n.assert})
	}
}

// branch sets split s to prefer in (greedy) or out.
func (c *compiler) branch(s, in, out int, greedy bool) {
	if greedy {
		c.insts[s].x, c.insts[s].y = in, out
	} else {
		c.insts[s].x, c.insts[s].y = out, in
	}
}

// runeRange is an inclusive range of runes.
type runeRange struct{ lo, hi rune }

// prop is a Unicode property in a class, possibly negated (\P, \S).
type prop struct {
	table *unicode.RangeTable
	neg   bool
}

// charClass is a set of runes: its ranges, properties and nested classes,
// negated as a whole; under fold a rune matches when any rune of its
// simple case-folding orbit does.
type charClass struct {
	negate bool
	fold   bool
	ranges []runeRange
	props  []prop
	subs   []*charClass
	low    [latinRunes / 64]uint64 // the answer for runes below latinRunes
}

// latinRunes is how many runes (the one- and two-byte UTF-8 range) a
// class answers from its bitmap.
const latinRunes = 0x800

func (c *charClass) prepare() {
	for _, s := range c.subs {
		s.fold = s.fold || c.fold
		s.prepare()
	}
	for r := range rune(latinRunes) {
		if c.slowMatches(r) {
			c.low[r/64] |= 1 << (r % 64)
		}
	}
}

func (c *charClass) matches(r rune) bool {
	if r < latinRunes {
		return c.low[r/64]&(1<<(r%64)) != 0
	}
	return c.slowMatches(r)
}

func (c *charClass) slowMatches(r rune) bool {
	in := c.contains(r)
	if !in && c.fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if c.contains(f) {
				in = true
				break
			}
		}
	}
	return in != c.negate
}

// contains reports whether r is in the class before negation.
func (c *charClass) contains(r rune) bool {
	for _, rg := range c.ranges {
		if r >= rg.lo && r <= rg.hi {
			return true
		}
	}
	for _, p := range c.props {
		if unicode.Is(p.table, r) != p.neg {
			return true
		}
	}
	for _, s := range c.subs {
		if s.slowMatches(r) {
			return true
		}
	}
	return false
}
