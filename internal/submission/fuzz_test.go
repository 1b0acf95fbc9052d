package submission

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzVerifyTEST04 feeds summary logs to the TEST04 verdict: it never
// panics, and a verdict that passes says so in its text.
func FuzzVerifyTEST04(f *testing.F) {
	for _, name := range subdirs("testdata/verify/test04") {
		ref, _ := os.ReadFile(filepath.Join("testdata/verify/test04", name, "ref_summary.txt"))
		test, _ := os.ReadFile(filepath.Join("testdata/verify/test04", name, "test_summary.txt"))
		f.Add(ref, test)
	}
	f.Fuzz(func(t *testing.T, ref, test []byte) {
		v, err := VerifyTEST04(bytes.NewReader(ref), bytes.NewReader(test))
		if err == nil && v.Pass != strings.Contains(v.Text, Pass) {
			t.Fatalf("pass %v but the text says:\n%s", v.Pass, v.Text)
		}
	})
}

// FuzzVerifyTEST01Accuracy feeds accuracy logs to the TEST01 verdict.
func FuzzVerifyTEST01Accuracy(f *testing.F) {
	for _, name := range subdirs("testdata/verify/test01acc") {
		acc, _ := os.ReadFile(filepath.Join("testdata/verify/test01acc", name, "accuracy.json"))
		comp, _ := os.ReadFile(filepath.Join("testdata/verify/test01acc", name, "compliance.json"))
		f.Add(acc, comp, uint8(0))
	}
	types := []DType{Byte, Int16, Int32, Int64, Float32}
	f.Fuzz(func(t *testing.T, acc, comp []byte, typ uint8) {
		v, err := VerifyTEST01Accuracy(bytes.NewReader(acc), bytes.NewReader(comp), types[int(typ)%len(types)])
		if err == nil && v.Pass != strings.Contains(v.Text, Pass) {
			t.Fatalf("pass %v but the text says:\n%s", v.Pass, v.Text)
		}
	})
}

// FuzzMemDevice feeds SMBIOS records to the memory module reader.
func FuzzMemDevice(f *testing.F) {
	f.Add(dimm(16384, 0x22, 4800))
	f.Add(dimm(0x7FFF, 0x1A, 3200))
	f.Add([]byte{17, 0, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		_ = memDevice(raw)
	})
}

// FuzzReadChars: what readChars reads of UTF-8 text is valid UTF-8 with
// no "\r", at most n characters.
func FuzzReadChars(f *testing.F) {
	f.Add([]byte("a\r\nb\rc"), 3)
	f.Add([]byte("é€x"), 2)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		n = n % 10000
		if n < 0 {
			n = -n
		}
		out, err := readChars(bytes.NewReader(b), n)
		if err != nil {
			return
		}
		if bytes.ContainsRune(out, '\r') || len([]rune(string(out))) > n {
			t.Fatalf("readChars(%q, %d) = %q", b, n, out)
		}
	})
}
