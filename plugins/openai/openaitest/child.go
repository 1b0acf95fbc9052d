package openaitest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

// A canned server in a process of its own keeps its CPU out of a
// measured client's: the client's process runs a program that calls
// [ServeChild] (a command's subcommand, or a test binary run again) by
// [StartChild], and reads what the server recorded with [TakeLog].

// ServeChild serves b in this process: it prints the server's URL on a
// line of stdout and stops when stdin closes (the parent closed it, or
// died) or ctx ends.
func ServeChild(ctx context.Context, b Behavior) error {
	srv, err := Start(ctx, b)
	if err != nil {
		return err
	}
	if _, err := fmt.Println(srv.URL()); err != nil {
		return errors.Join(err, srv.Close())
	}
	stdin := make(chan struct{})
	go func() { // ends with this process when ctx ends first
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdin)
	}()
	select {
	case <-stdin:
	case <-ctx.Done():
	}
	return srv.Close()
}

// Child is a canned server running in a child process.
type Child struct {
	// URL is the server's base URL.
	URL   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// StartChild starts cmd, a program that runs [ServeChild], and waits for
// the URL it prints. Close stops it; so does this process's end, which
// closes the child's stdin.
func StartChild(cmd *exec.Cmd) (*Child, error) {
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the canned server: %w", err)
	}
	c := &Child{cmd: cmd, stdin: in}
	line, err := bufio.NewReader(out).ReadString('\n')
	c.URL = strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(c.URL, "http") {
		return nil, errors.Join(fmt.Errorf("the canned server printed no URL (%q): %w", line, err), c.Close())
	}
	return c, nil
}

// Close closes the child's stdin and waits for it to end.
func (c *Child) Close() error {
	c.stdin.Close()
	return c.cmd.Wait()
}

// Sample is k when the logged request's prompt is the token ids [1, k],
// as the measuring clients send sample k; false for any other body.
func (e LogEntry) Sample() (int, bool) {
	var b struct{ Prompt []int }
	if err := json.Unmarshal([]byte(e.Body), &b); err != nil || len(b.Prompt) != 2 || b.Prompt[0] != 1 {
		return 0, false
	}
	return b.Prompt[1], true
}

// TakeLog reads, from another process, what the server at url recorded
// of each generation request since the last read ([LogPath]), and
// clears it.
func TakeLog(ctx context.Context, url string) ([]LogEntry, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+LogPath, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the canned server's log: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("the canned server's log: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the canned server's log: HTTP %d: %.200s", resp.StatusCode, b)
	}
	var log []LogEntry
	if err := json.Unmarshal(b, &log); err != nil {
		return nil, fmt.Errorf("the canned server's log: %w", err)
	}
	return log, nil
}
