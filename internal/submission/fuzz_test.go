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

// FuzzLoadgenTime: a time loadgenTime reads is the one it reads back from
// its canonical spelling.
func FuzzLoadgenTime(f *testing.F) {
	f.Add("07-25-2025 15:30:43.020")
	f.Add("1-2-2025 3:4:5.6")
	f.Add("02-30-2025 00:00:00.0")
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := loadgenTime(s)
		if err != nil {
			return
		}
		again, err := loadgenTime(tm.Format("01-02-2006 15:04:05.000000"))
		if err != nil || !again.Equal(tm) {
			t.Fatalf("loadgenTime(%q) = %v, but its canonical form reads %v, %v", s, tm, again, err)
		}
	})
}

// FuzzCheckPTDSession feeds a PTD session any server.json and PTD log:
// the Power WG's checks never panic, and refuse what is not a session.
func FuzzCheckPTDSession(f *testing.F) {
	f.Add([]byte(`{"version": "1.0"}`), []byte("07-25-2025 10:00:01.000: ERROR: x\n"))
	f.Add([]byte(`[]`), []byte("WARNING:\nERROR:"))
	f.Fuzz(func(t *testing.T, server, log []byte) {
		perf := t.TempDir()
		detail(t, filepath.Join(perf, "run_1"), perfLogOf(v51, "Offline"))
		addPower(t, perf, ptdSession{})
		write(t, filepath.Join(perf, "power", "server.json"), string(server))
		write(t, filepath.Join(perf, "power", "ptd_logs.txt"), string(log))
		if len(CheckPTDSession(perf, v51.Power)) == 0 && !bytes.Contains(server, []byte("ptd_messages")) {
			t.Fatalf("a session without PTD messages passed: %q", server)
		}
	})
}
