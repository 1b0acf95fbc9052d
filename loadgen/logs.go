package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"
)

// logs owns the log files of one StartTest. Like the official AsyncLog it
// counts the errors and warnings written to the detail log and reports them
// at the end of the summary. All methods are safe for concurrent use.
type logs struct {
	mu sync.Mutex

	files    []*os.File
	bufs     []*bufio.Writer
	summaryW io.Writer
	detailW  io.Writer
	// detailBuf is flushed after every entry: the detail log says what
	// happened, and must survive a host that is killed or runs out of disk.
	detailBuf *bufio.Writer
	acc       *bufio.Writer
	trace     *bufio.Writer

	console io.Writer
	origin  time.Time
	pid     int

	accNeedsComma bool
	errorMsgs     []string
	warningMsgs   []string
	line          []byte
	hex           []byte
}

// openLogs creates the log files, as the official LogOutputs does, and
// writes the accuracy log header.
func openLogs(ls LogSettings, testDateTime string, pid int) (*logs, error) {
	if ls.OutDir == "" {
		return nil, ErrNoOutDir
	}
	base := filepath.Join(ls.OutDir, ls.prefix())
	if ls.PrefixWithDatetime {
		base += testDateTime + "_"
	}
	l := &logs{console: ls.Console, pid: pid}
	open := func(name string, tee io.Writer) (*bufio.Writer, io.Writer, error) {
		f, err := os.Create(base + name + ls.Suffix + extOf(name))
		if err != nil {
			return nil, nil, fmt.Errorf("open log: %w", err)
		}
		l.files = append(l.files, f)
		b := bufio.NewWriterSize(f, 1<<16)
		l.bufs = append(l.bufs, b)
		if tee != nil {
			return b, io.MultiWriter(b, tee), nil
		}
		return b, b, nil
	}
	var err error
	if _, l.summaryW, err = open("summary", ls.SummaryCopy); err != nil {
		return nil, errors.Join(err, l.close())
	}
	if l.detailBuf, l.detailW, err = open("detail", ls.DetailCopy); err != nil {
		return nil, errors.Join(err, l.close())
	}
	if l.acc, _, err = open("accuracy", nil); err != nil {
		return nil, errors.Join(err, l.close())
	}
	if ls.EnableTrace {
		if l.trace, _, err = open("trace", nil); err != nil {
			return nil, errors.Join(err, l.close())
		}
		l.trace.WriteString("{\"traceEvents\":[\n")
	}
	l.acc.WriteString("[")
	return l, nil
}

// extOf gives the official extension of each log.
func extOf(name string) string {
	if name == "accuracy" || name == "trace" {
		return ".json"
	}
	return ".txt"
}

// start sets the origin of detail log times (the official StartLogging).
func (l *logs) start(origin time.Time) {
	l.mu.Lock()
	l.origin = origin
	l.mu.Unlock()
}

// finish writes the summary's error and warning counts, the accuracy and
// trace footers, and closes every file.
func (l *logs) finish(traceOrigin time.Time) error {
	l.mu.Lock()
	var s string
	switch n := len(l.warningMsgs); n {
	case 0:
		s = "\nNo warnings encountered during test.\n"
	case 1:
		s = "\n1 warning encountered. See detailed log.\n"
	default:
		s = "\n" + strconv.Itoa(n) + " warnings encountered. See detailed log.\n"
	}
	switch n := len(l.errorMsgs); n {
	case 0:
		s += "\nNo errors encountered during test.\n"
	case 1:
		s += "\n1 ERROR encountered. See detailed log.\n"
	default:
		s += "\n" + strconv.Itoa(n) + " ERRORS encountered. See detailed log.\n"
	}
	io.WriteString(l.summaryW, s)
	l.acc.WriteString("\n]\n")
	if l.trace != nil {
		fmt.Fprintf(l.trace, "{\"name\":\"LastTrace\"}\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\n\"ts\":%.3f,\n\"version\":\"MLPerf LoadGen v1.0\"\n}\n}\n",
			float64(traceOrigin.UnixNano())/1e3)
	}
	l.mu.Unlock()
	return l.close()
}

func (l *logs) close() error {
	failed := make([]error, len(l.files))
	for i, b := range l.bufs {
		failed[i] = errors.Join(b.Flush(), l.files[i].Close())
	}
	err := markIncomplete(l.files, failed)
	l.files, l.bufs = nil, nil
	if err != nil {
		return fmt.Errorf("close logs: %w", err)
	}
	return nil
}

// counts returns copies of the errors and warnings logged so far.
func (l *logs) counts() (errs, warnings []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errorMsgs), slices.Clone(l.warningMsgs)
}

// summaryLine writes one summary line: the official summary(message, value)
// prints the message, then the value with the stream's default formatting.
func (l *logs) summaryLine(msg string, v ...value) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.line[:0], msg...)
	for _, f := range v {
		b = f(b, false)
	}
	b = append(b, '\n')
	l.summaryW.Write(b)
	l.line = b
}

// level marks a detail entry as an error or a warning.
type level int

const (
	levelInfo level = iota
	levelError
	levelWarning
)

// detail writes one ":::MLLOG" line, timestamped now.
func (l *logs) detail(key string, v value, lv level, file string) {
	l.detailAt(time.Now(), key, v, lv, file)
}

// detailAt writes one ":::MLLOG" line timestamped at t, in the official
// format, key order and spacing.
func (l *logs) detailAt(t time.Time, key string, v value, lv level, file string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ns := max(int64(t.Sub(l.origin)), 0)
	b := append(l.line[:0], ":::MLLOG {\"key\": "...)
	b = appendJSONString(b, key)
	b = append(b, ", \"value\": "...)
	b = v(b, true)
	b = append(b, ", \"time_ms\": "...)
	b = strconv.AppendInt(b, ns/1e6, 10)
	b = append(b, '.')
	frac := strconv.AppendInt(nil, ns%1e6, 10)
	for range 6 - len(frac) {
		b = append(b, '0')
	}
	b = append(b, frac...)
	b = append(b, ", \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": "...)
	b = strconv.AppendBool(b, lv == levelError)
	b = append(b, ", \"is_warning\": "...)
	b = strconv.AppendBool(b, lv == levelWarning)
	b = append(b, ", \"file\": "...)
	b = appendJSONString(b, file)
	b = append(b, ", \"line_no\": 0, \"pid\": "...)
	b = strconv.AppendInt(b, int64(l.pid), 10)
	b = append(b, ", \"tid\": "...)
	b = strconv.AppendInt(b, int64(l.pid), 10)
	b = append(b, "}}\n"...)
	l.detailW.Write(b)
	l.detailBuf.Flush()
	l.line = b
	switch lv {
	case levelError:
		l.errorMsgs = append(l.errorMsgs, key+": "+string(v(nil, false)))
	case levelWarning:
		l.warningMsgs = append(l.warningMsgs, key+": "+string(v(nil, false)))
	}
}

// console writes a line where the official LoadGen prints to stdout.
func (l *logs) consoleLine(s string) {
	if l.console == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.console, s)
}

// accuracy appends one record to the accuracy log:
// { "seq_id" : N, "qsl_idx" : N, "data" : "HEX" } with optional token
// fields, in the official spacing. tokenData is nil when the record has no
// "token_data" field.
func (l *logs) accuracy(seq, qslIdx uint64, data []byte, withTokens bool, tokenData []byte, hasTokenData bool, nTokens int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.hex[:0]
	if l.accNeedsComma {
		b = append(b, ",\n{ "...)
	} else {
		b = append(b, "\n{ "...)
	}
	b = append(b, "\"seq_id\" : "...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, ", \"qsl_idx\" : "...)
	b = strconv.AppendUint(b, qslIdx, 10)
	b = append(b, ", \"data\" : "...)
	b = l.appendHexStreamed(b, data)
	if withTokens {
		if hasTokenData {
			b = append(b, ", \"token_data\" : "...)
			b = l.appendHexStreamed(b, tokenData)
		}
		b = append(b, ", \"token_count\" : "...)
		b = strconv.AppendInt(b, nTokens, 10)
	}
	b = append(b, " }"...)
	l.acc.Write(b)
	l.hex = b
	l.accNeedsComma = true
}

// hexChunk bounds the accuracy record buffer: a large response's hex goes
// to the log in pieces of about this size, so that a 100 MiB output needs
// no 200 MiB buffer (kept for the rest of the run).
const hexChunk = 64 << 10

// appendHexStreamed appends data as a quoted upper-case hex string, writing
// b to the accuracy log whenever it reaches hexChunk; it returns what is
// left to write. l.mu is held.
func (l *logs) appendHexStreamed(b, data []byte) []byte {
	b = append(b, '"')
	for len(data) > 0 {
		n := min(len(data), hexChunk/2)
		b = appendHexDigits(b, data[:n])
		data = data[n:]
		if len(b) >= hexChunk {
			l.acc.Write(b)
			b = b[:0]
		}
	}
	return append(b, '"')
}

func appendHexDigits(b, data []byte) []byte {
	const digits = "0123456789ABCDEF"
	for _, c := range data {
		b = append(b, digits[c>>4], digits[c&0xF])
	}
	return b
}

// traceWrite appends raw trace events.
func (l *logs) traceEnabled() bool { return l.trace != nil }

func (l *logs) traceWrite(b []byte) {
	l.mu.Lock()
	l.trace.Write(b)
	l.mu.Unlock()
}
