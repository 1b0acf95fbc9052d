package openaitest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// childEnv makes this test binary, run again, a canned server's process.
const childEnv = "OPENAITEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := ServeChild(context.Background(), Behavior{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestChild: a server in a child process answers, its log is read and
// cleared from this one, and it ends when its stdin closes.
func TestChild(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	c, err := StartChild(cmd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(c.URL+"/v1/completions", "application/json", strings.NewReader(`{"model":"canned","prompt":[1,5],"max_tokens":3,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body) // to its end: the first frame was sent and stamped
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	log, err := TakeLog(t.Context(), c.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].Path != "/v1/completions" || log[0].FirstFrame == 0 {
		t.Fatalf("log = %+v, want the one streamed request with its first frame's time", log)
	}
	if log, err = TakeLog(t.Context(), c.URL); err != nil || len(log) != 0 {
		t.Fatalf("log after a read = %+v, %v; want it cleared", log, err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("the child ended with %v once its stdin closed", err)
	}
}

// TestStartChildWithoutURL: a program that prints no URL is an error
// naming what it printed.
func TestStartChildWithoutURL(t *testing.T) {
	t.Parallel()
	_, err := StartChild(exec.Command("sh", "-c", "echo not-a-url"))
	if err == nil || !strings.Contains(err.Error(), `printed no URL ("not-a-url\n")`) {
		t.Fatalf("err = %v, want the output named", err)
	}
}

// TestLogEntrySample: the sample a prompt [1, k] names; none for any
// other body.
func TestLogEntrySample(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]int{`{"prompt":[1,5]}`: 5, `{"prompt":[2,5]}`: -1, `{"prompt":[1]}`: -1, `{"messages":[]}`: -1, `not json`: -1} {
		k, ok := LogEntry{Body: body}.Sample()
		if want < 0 && ok || want >= 0 && (!ok || k != want) {
			t.Errorf("Sample of %s = %d, %v; want %d", body, k, ok, want)
		}
	}
}
