package wasmguard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzNestedForm generates a valid function from the fuzzer's bytes
// (blocks, loops with and without a result or a parameter, if/else, and
// br, br_if and br_table to any label with the right values), rewrites it
// with the nested and with the inline form at budget 1 (a tick at every
// loop entry), and checks in wazero that both compile and behave alike:
// the same result or the same stop after as many ticks, the same logged
// values; and, where the guest finished, that the original does the same.
// Most generated loops never end: the tick stops them.
func FuzzNestedForm(f *testing.F) {
	for _, seed := range []string{
		"\x03\x00\x08\x01\x09\x00",
		"\x02\x03\x03\x00\x01\x08\x02\x00\x0a\x03\x02\x01",
		"\x06\x05\x00\x01\x03\x03\x00\x0a\x01\x00\x07\x08\x03\x05",
		"\x04\x03\x03\x02\x00\x0a\x05\x04\x01\x02\x03\x09\x04",
		"\x05\x07\x03\x03\x00\x01\x08\x01\x00\x05\x03\x0a\x02\x01\x03",
		"\x03\x06\x03\x03\x03\x00\x01\x08\x03\x02\x09\x02",
		"\x07\x03\x03\x00\x08\x01\x07\x02\x03\x03\x0a\x03\x02\x01\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mod := fuzzModule(data)
		c := Config{ImportModule: "guard", ImportName: "tick", Budget: 1}
		nested, err := Instrument(mod, c)
		require.NoError(t, err)
		c.inline = true
		inline, err := Instrument(mod, c)
		require.NoError(t, err)
		require.Equal(t, nested.Loops, inline.Loops)

		const stopAfter = 200
		n := instantiate(t, nested.Module, stopAfter)
		got, errN := n.call(t, "f", 7)
		in := instantiate(t, inline.Module, stopAfter)
		want, errI := in.call(t, "f", 7)
		if errI != nil {
			require.ErrorIs(t, errI, errStop)
			require.ErrorIs(t, errN, errStop)
		} else {
			require.NoError(t, errN)
			assert.Equal(t, want, got)
			plain := instantiate(t, mod, 0)
			orig, err := plain.call(t, "f", 7)
			require.NoError(t, err)
			assert.Equal(t, orig, got)
			assert.Equal(t, plain.logs, n.logs)
		}
		assert.Equal(t, in.ticks, n.ticks)
		assert.Equal(t, in.logs, n.logs)
	})
}

// fuzzModule is a module with env.log (i32) and an exported function f
// (i32) -> i32 whose body gen writes from data.
func fuzzModule(data []byte) []byte {
	g := &gen{data: data, labels: []int{1}} // the function's label takes its i32 result
	g.stmts(0)
	g.body = append(g.body, 0x20, 1, 0x0b)        // local.get $x; end
	code := append([]byte{1, 2, 0x7f}, g.body...) // two i32 locals: $x (1) and $y (2)
	mod := []byte("\x00asm\x01\x00\x00\x00" +
		"\x01\x0a\x02\x60\x01\x7f\x01\x7f\x60\x01\x7f\x00" + // types: (i32) -> i32, (i32) -> ()
		"\x02\x0b\x01\x03env\x03log\x00\x01" + // import env.log: type 1
		"\x03\x02\x01\x00" + // function 1: type 0
		"\x07\x05\x01\x01f\x00\x01") // export f
	sec := appendVec(nil, 1, appendU32(nil, uint32(len(code))))
	sec = append(sec, code...)
	return append(appendU32(append(mod, secCode), uint32(len(sec))), sec...)
}

// gen writes a function body from fuzzer bytes; labels holds the branch
// arity (values a branch passes) of each open label, innermost last.
type gen struct {
	data   []byte
	pos    int
	body   []byte
	labels []int
}

func (g *gen) next(n int) int {
	if g.pos >= len(g.data) {
		return 0
	}
	g.pos++
	return int(g.data[g.pos-1]) % n
}

// stmts writes statements that leave the operand stack as they found it,
// until the bytes run out or one branches away.
func (g *gen) stmts(depth int) {
	for range g.next(4) + 1 {
		if g.pos >= len(g.data) || g.stmt(depth) {
			return
		}
	}
}

// value pushes an i32: $x or a small constant.
func (g *gen) value() {
	if g.next(2) == 0 {
		g.body = append(g.body, 0x20, 1)
		return
	}
	g.body = appendS32(append(g.body, 0x41), int32(g.next(64)))
}

// cond pushes $x & mask, mask from the data.
func (g *gen) cond() {
	g.body = appendS32(append(g.body, 0x20, 1, 0x41), int32(g.next(16)+1))
	g.body = append(g.body, 0x71)
}

func (g *gen) block(op byte, bt byte, arity int, depth int) {
	g.body = append(g.body, op, bt)
	g.labels = append(g.labels, arity)
	g.stmts(depth + 1)
	g.labels = g.labels[:len(g.labels)-1]
}

// label picks a label and returns its depth and arity.
func (g *gen) label() (uint32, int) {
	d := g.next(len(g.labels))
	return uint32(d), g.labels[len(g.labels)-1-d]
}

// stmt writes one statement; it reports whether it branched away (what
// follows would be unreachable).
func (g *gen) stmt(depth int) bool {
	kind := g.next(11)
	if depth > 6 && kind >= 2 && kind <= 7 {
		kind = 0
	}
	switch kind {
	case 0: // $x = $x * 3 + c
		g.body = append(g.body, 0x20, 1, 0x41, 3, 0x6c, 0x41, byte(g.next(64)), 0x6a, 0x21, 1)
	case 1: // log $x
		g.body = append(g.body, 0x20, 1, 0x10, 0)
	case 2:
		g.block(0x02, 0x40, 0, depth)
		g.body = append(g.body, 0x0b)
	case 3:
		g.block(0x03, 0x40, 0, depth)
		g.body = append(g.body, 0x0b)
	case 4: // block (result i32), dropped
		g.block(0x02, 0x7f, 1, depth)
		g.value()
		g.body = append(g.body, 0x0b, 0x1a)
	case 5: // loop (result i32): a branch to it passes nothing
		g.block(0x03, 0x7f, 0, depth)
		g.value()
		g.body = append(g.body, 0x0b, 0x1a)
	case 6: // loop (type 0), (i32) -> i32: takes its parameter into $y
		g.value()
		g.body = append(g.body, 0x03, 0x00, 0x21, 2)
		g.labels = append(g.labels, 1)
		g.stmts(depth + 1)
		g.labels = g.labels[:len(g.labels)-1]
		g.body = append(g.body, 0x20, 2, 0x0b, 0x1a)
	case 7:
		g.cond()
		g.block(0x04, 0x40, 0, depth)
		g.body = append(g.body, 0x05)
		g.labels = append(g.labels, 0)
		g.stmts(depth + 1)
		g.labels = g.labels[:len(g.labels)-1]
		g.body = append(g.body, 0x0b)
	case 8: // br_if
		d, arity := g.label()
		if arity == 1 {
			g.value()
		}
		g.cond()
		g.body = appendU32(append(g.body, 0x0d), d)
		if arity == 1 {
			g.body = append(g.body, 0x1a)
		}
	case 9: // br
		d, arity := g.label()
		if arity == 1 {
			g.value()
		}
		g.body = appendU32(append(g.body, 0x0c), d)
		return true
	case 10: // br_table over labels of one arity, indexed by $x
		d, arity := g.label()
		targets := []uint32{d}
		for range g.next(4) {
			if e, a := g.label(); a == arity {
				targets = append(targets, e)
			}
		}
		if arity == 1 {
			g.value()
		}
		g.body = appendS32(append(g.body, 0x20, 1, 0x41), int32(len(targets)))
		g.body = append(g.body, 0x70, 0x0e)
		g.body = appendU32(g.body, uint32(len(targets)-1))
		for _, e := range targets {
			g.body = appendU32(g.body, e)
		}
		return true
	}
	return false
}
