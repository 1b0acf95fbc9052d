package submission

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"unicode/utf8"
)

// What the official tools/submission/truncate_accuracy_log.py keeps of an
// accuracy log: the first and the last viewSize characters, around a
// marker; a log already at most maxLogSize bytes with a hash= line in its
// accuracy.txt is left alone.
const (
	viewSize   = 4096
	maxLogSize = 10 * 1024
	truncMark  = "\n\n...\n\n"
)

// hashLine matches accuracy.txt's hash line, as the official tools read it.
var hashLine = regexp.MustCompile(`^hash=(\w+)\n?$`)

// ErrNotTruncated is wrapped by TruncateAccuracyLog's errors.
var ErrNotTruncated = errors.New("accuracy log not truncated")

// TruncateAccuracyLog does to the accuracy directory dir
// (mlperf_log_accuracy.json and accuracy.txt) what the official
// truncate_accuracy_log.py does to each one it visits: unless accuracy.txt
// already has a hash= line and the log is under 10 KiB, it copies the log
// to backup (when backup is not ""), appends "\nhash=SHA256\n" (of the
// whole log) to accuracy.txt, and cuts a log of 4096 bytes or more to its
// first and last 4096 characters around "\n\n...\n\n". It reports whether
// it changed anything.
//
// The log is read as the script reads it: UTF-8 text whose "\r\n" and
// "\r" line ends become "\n".
//
// # Errors
//
// Wraps [ErrNotTruncated] for the cases the script refuses: no log, no
// accuracy.txt, a backup already there; or an I/O error.
func TruncateAccuracyLog(dir, backup string) (bool, error) {
	log := filepath.Join(dir, AccuracyFile)
	txt := filepath.Join(dir, AccuracyText)
	st, err := os.Stat(log)
	if err != nil {
		return false, fmt.Errorf("%w: %s missing", ErrNotTruncated, log)
	}
	txtBytes, err := os.ReadFile(txt)
	if err != nil {
		return false, fmt.Errorf("%w: %s missing, generate to continue", ErrNotTruncated, txt)
	}
	if hashOf(txtBytes) != "" && st.Size() < maxLogSize {
		return false, nil
	}
	if backup != "" {
		dst := filepath.Join(backup, AccuracyFile)
		if _, err := os.Stat(dst); err == nil {
			return false, fmt.Errorf("%w: not processing %s because %s already exists", ErrNotTruncated, log, dst)
		}
		if err := CopyFile(log, dst); err != nil {
			return false, err
		}
	}
	sum, err := fileSHA256(log)
	if err != nil {
		return false, err
	}
	f, err := os.OpenFile(txt, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return false, err
	}
	if _, err := fmt.Fprintf(f, "\nhash=%s\n", sum); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	return true, truncateFile(log, st.Size())
}

// hashOf returns the first hash= value of accuracy.txt's lines, or "".
func hashOf(txt []byte) string {
	for _, line := range bytes.SplitAfter(txt, []byte("\n")) {
		if m := hashLine.FindSubmatch(line); m != nil {
			return string(m[1])
		}
	}
	return ""
}

// AccuracyHash returns accuracy.txt's hash= value, or "" when it has none.
func AccuracyHash(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, AccuracyText))
	if err != nil {
		return "", err
	}
	return hashOf(b), nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// truncateFile is the script's truncate_file: a file under viewSize bytes
// stays; otherwise the first viewSize characters, the marker, and
// viewSize characters read from byte size-viewSize.
func truncateFile(path string, size int64) error {
	if size < viewSize {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	start, err := readChars(f, viewSize)
	if err == nil {
		_, err = f.Seek(size-viewSize, io.SeekStart)
	}
	var end []byte
	if err == nil {
		end, err = readChars(f, viewSize)
	}
	f.Close()
	if err != nil {
		return fmt.Errorf("truncate %s: %w", path, err)
	}
	out := append(append(start, truncMark...), end...)
	return os.WriteFile(path, out, 0o644)
}

// readChars reads up to n characters of UTF-8 text from r, turning "\r\n"
// and "\r" into "\n" as Python's text files do.
func readChars(r io.Reader, n int) ([]byte, error) {
	br := bufio.NewReader(r)
	var out []byte
	for range n {
		c, size, err := br.ReadRune()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if c == utf8.RuneError && size == 1 {
			return nil, errors.New("not UTF-8 text")
		}
		if c == '\r' {
			if next, _, err := br.ReadRune(); err == nil && next != '\n' {
				if err := br.UnreadRune(); err != nil {
					return nil, err
				}
			}
			c = '\n'
		}
		out = utf8.AppendRune(out, c)
	}
	return out, nil
}

// CopyFile copies src to dst, making dst's directory.
func CopyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
