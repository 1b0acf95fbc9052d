package rawort

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Proc is a running rawort.
type Proc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// Run is one timed run: wall time and the rawort process's CPU time.
type Run struct {
	Wall, CPU time.Duration
}

// Start runs bin on library lib with model, threads intra-op threads and
// batch samples per run, and waits until it has loaded the model. Its
// stderr is this process's.
func Start(bin, lib, model string, threads, batch int) (*Proc, error) {
	cmd := exec.Command(bin, lib, model, strconv.Itoa(threads), strconv.Itoa(batch))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &Proc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if line, err := p.out.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
		p.Close()
		return nil, fmt.Errorf("%s did not start: %q %v", bin, line, err)
	}
	return p, nil
}

// Round asks for n runs and returns their times.
func (p *Proc) Round(n int) ([]Run, error) {
	if _, err := fmt.Fprintf(p.in, "cpu %d\n", n); err != nil {
		return nil, err
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("rawort: %w", err)
	}
	return parseReply(line, n)
}

// parseReply reads "ok WALL CPU WALL CPU ..." (nanoseconds) of n runs.
func parseReply(line string, n int) ([]Run, error) {
	f := strings.Fields(line)
	if len(f) != 2*n+1 || f[0] != "ok" {
		return nil, errors.New("rawort: bad reply " + strconv.Quote(line))
	}
	out := make([]Run, n)
	for i := range out {
		w, err1 := strconv.ParseInt(f[1+2*i], 10, 64)
		c, err2 := strconv.ParseInt(f[2+2*i], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("rawort: %w", err)
		}
		out[i] = Run{time.Duration(w), time.Duration(c)}
	}
	return out, nil
}

// Close asks rawort to exit and waits for it.
func (p *Proc) Close() {
	_, _ = fmt.Fprintln(p.in, 0) // "0 runs" ends it; if rawort is gone, Wait has already ended
	p.in.Close()
	_ = p.cmd.Wait()
}
