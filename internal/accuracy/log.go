package accuracy

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrLog is wrapped by every error about a malformed accuracy log.
var ErrLog = errors.New("malformed accuracy log")

// Entry is one logged response of mlperf_log_accuracy.json:
// {"seq_id": 0, "qsl_idx": 7, "data": "0A1B..."}.
type Entry struct {
	SeqID  uint64 `json:"seq_id"`
	QSLIdx uint64 `json:"qsl_idx"`
	// Data is the response's bytes, hex-encoded in the file.
	Data []byte `json:"-"`
	// TokenCount is set by LLM benchmarks; 0 otherwise.
	TokenCount int64 `json:"token_count,omitempty"`
}

type rawEntry struct {
	SeqID      *uint64 `json:"seq_id"`
	QSLIdx     *uint64 `json:"qsl_idx"`
	Data       *string `json:"data"`
	TokenCount int64   `json:"token_count"`
}

// ReadLog streams the entries of an accuracy log to fn, in file order,
// without holding the whole file. An entry's Data is reused after fn
// returns: copy what you keep.
//
// # Errors
//
// Wraps [ErrLog] naming the entry for a file that is not a JSON array of
// entries, an entry without seq_id, qsl_idx or data, or data that is not
// hex. Errors from fn are returned as they are.
func ReadLog(r io.Reader, fn func(Entry) error) error {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLog, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("%w: want a JSON array of entries, got %v", ErrLog, tok)
	}
	var buf []byte
	for n := 0; dec.More(); n++ {
		var raw rawEntry
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%w: entry %d: %w", ErrLog, n, err)
		}
		if raw.SeqID == nil || raw.QSLIdx == nil || raw.Data == nil {
			return fmt.Errorf("%w: entry %d: want seq_id, qsl_idx and data", ErrLog, n)
		}
		if len(*raw.Data)%2 != 0 {
			return fmt.Errorf("%w: entry %d (qsl_idx %d): data has an odd number of hex digits", ErrLog, n, *raw.QSLIdx)
		}
		buf = buf[:0]
		buf = append(buf, make([]byte, len(*raw.Data)/2)...)
		if _, err := hex.Decode(buf, []byte(*raw.Data)); err != nil {
			return fmt.Errorf("%w: entry %d (qsl_idx %d): data: %w", ErrLog, n, *raw.QSLIdx, err)
		}
		if err := fn(Entry{SeqID: *raw.SeqID, QSLIdx: *raw.QSLIdx, Data: buf, TokenCount: raw.TokenCount}); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%w: unterminated array: %w", ErrLog, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: data after the array", ErrLog)
	}
	return nil
}

// WriteLog writes entries in the official format, one per line.
func WriteLog(w io.Writer, entries []Entry) error {
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i, e := range entries {
		sep := ",\n"
		if i == len(entries)-1 {
			sep = "\n"
		}
		if _, err := fmt.Fprintf(w, "{ \"seq_id\" : %d, \"qsl_idx\" : %d, \"data\" : \"%X\" }%s", e.SeqID, e.QSLIdx, e.Data, sep); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]\n")
	return err
}
