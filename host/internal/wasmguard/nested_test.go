package wasmguard

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestNestedFormKeepsMeaning runs testdata/nested.wasm's functions
// unguarded, with the nested form and with the inline form, at budgets
// that make the check fire from every iteration to never: the results and
// the logged values are the original's, and both forms tick equally often.
func TestNestedFormKeepsMeaning(t *testing.T) {
	t.Parallel()
	orig := readFixture(t, "nested.wasm")
	tests := []struct {
		name string
		fn   string
		arg  uint64
	}{
		{name: "br_table to every label", fn: "table", arg: 9},
		{name: "br_if to the function", fn: "table", arg: 40},
		{name: "loop with a result", fn: "result", arg: 7},
		{name: "loop with parameters around one without", fn: "params", arg: 20},
	}
	for _, tt := range tests {
		for _, budget := range []uint32{1, 2, 4, 1 << 16} {
			t.Run(fmt.Sprintf("%s/budget=%d", tt.name, budget), func(t *testing.T) {
				t.Parallel()
				plain := instantiate(t, orig, 0)
				want, err := plain.call(t, tt.fn, tt.arg)
				require.NoError(t, err)
				require.Greater(t, len(plain.logs), 3, "the function loops")

				c := Config{ImportModule: "guard", ImportName: "tick", Budget: budget}
				nested, err := Instrument(orig, c)
				require.NoError(t, err)
				c.inline = true
				inline, err := Instrument(orig, c)
				require.NoError(t, err)
				require.Equal(t, 0, inline.Nested)
				require.Equal(t, nested.Loops, inline.Loops)

				n := instantiate(t, nested.Module, 0)
				got, err := n.call(t, tt.fn, tt.arg)
				require.NoError(t, err)
				assert.Equal(t, want, got)
				assert.Equal(t, plain.logs, n.logs)

				in := instantiate(t, inline.Module, 0)
				_, err = in.call(t, tt.fn, tt.arg)
				require.NoError(t, err)
				assert.Equal(t, in.ticks, n.ticks, "both forms call the tick as often")
				if budget == 1 {
					assert.Positive(t, n.ticks)
				}
			})
		}
	}
}

// TestNestedFormShape compares the rewritten control flow of
// testdata/nested.wasm with testdata/nested.guarded.golden (go test -run
// TestNestedFormShape -update rewrites it): the blocks around each loop,
// the check at its head, the tick after it, and every branch depth in the
// loops' bodies remapped past the new labels.
func TestNestedFormShape(t *testing.T) {
	t.Parallel()
	res, err := Instrument(readFixture(t, "nested.wasm"), cfg)
	require.NoError(t, err)
	assert.Equal(t, 5, res.Loops)
	assert.Equal(t, 4, res.Nested, "all but the loop with a parameter")
	got := disassemble(t, res.Module)
	golden := filepath.Join("testdata", "nested.guarded.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

// controlNames names the opcodes disassemble prints with their immediates.
var controlNames = map[byte]string{
	0x00: "unreachable", 0x02: "block", 0x03: "loop", 0x04: "if", 0x05: "else", 0x0b: "end",
	0x0c: "br", 0x0d: "br_if", 0x0e: "br_table", 0x10: "call", 0x1a: "drop",
	0x20: "local.get", 0x21: "local.set", 0x22: "local.tee", 0x41: "i32.const", 0x45: "i32.eqz", 0x6b: "i32.sub",
}

// disassemble lists the code section's instructions, one a line, indented
// by block depth; opcodes outside controlNames print as hex.
func disassemble(t *testing.T, module []byte) string {
	t.Helper()
	secs, err := split(module)
	require.NoError(t, err)
	var b strings.Builder
	for _, s := range secs {
		if s.id != secCode {
			continue
		}
		r := &reader{b: s.body}
		n, err := r.count()
		require.NoError(t, err)
		for i := range n {
			size, err := r.u32()
			require.NoError(t, err)
			f := &reader{b: s.body[r.off : r.off+int(size)]}
			require.NoError(t, r.skip(int(size)))
			_, _, _, err = f.locals()
			require.NoError(t, err)
			fmt.Fprintf(&b, "func %d\n", i)
			disassembleBody(t, &b, f)
		}
	}
	return b.String()
}

func disassembleBody(t *testing.T, b *strings.Builder, f *reader) {
	t.Helper()
	depth := 1
	for !f.done() {
		at := f.off
		op, _ := f.byte()
		var labels []uint32 // branch depths, printed in decimal
		switch op {
		case 0x0b, 0x05:
			depth--
		case 0x0c, 0x0d, 0x0e:
			k := 0
			if op == 0x0e {
				var err error
				k, err = f.count()
				require.NoError(t, err)
			}
			for range k + 1 {
				d, err := f.u32()
				require.NoError(t, err)
				labels = append(labels, d)
			}
		case 0x02, 0x03, 0x04:
			require.NoError(t, f.blockType())
		case 0x10:
			require.NoError(t, f.u32s(1))
		default:
			require.NoError(t, f.immediates(op))
		}
		name, ok := controlNames[op]
		if !ok {
			name = fmt.Sprintf("0x%02x", op)
		}
		fmt.Fprintf(b, "%s%s", strings.Repeat("  ", max(depth, 0)), name)
		if labels != nil {
			for _, d := range labels {
				fmt.Fprintf(b, " %d", d)
			}
		} else {
			for _, c := range f.b[at+1 : f.off] {
				fmt.Fprintf(b, " %02x", c)
			}
		}
		b.WriteByte('\n')
		switch op {
		case 0x02, 0x03, 0x04, 0x05:
			depth++
		}
	}
}
