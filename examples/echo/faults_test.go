package echo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/examples/echo"
)

// faultRun loads echo with a fault, issues one query of three samples and
// returns the transcript of what the host saw.
func faultRun(t *testing.T, d driver, fault string, extra map[string]string) string {
	var tr transcript
	require.Equal(t, abi.OK, abi.Code(d.Info(t).GetStatus().GetCode()))
	opts := map[string]string{echo.OptFault: fault}
	for k, v := range extra {
		opts[k] = v
	}
	require.Equal(t, abi.OK, abi.Code(d.Load(t, &backendv1.LoadRequest{ModelBytes: []byte("m"), Options: opts}).GetCode()))
	require.Equal(t, abi.OK, abi.Code(d.LoadSamples(t, scenarioSamples()).GetCode()))
	tr.completions("query", d.Issue(t, query(1, 7, 8, 9)))
	// The answer to a flush comes after everything the query caused.
	d.Flush(t)
	for _, e := range d.Events() {
		fmt.Fprintf(&tr, "event: %s\n", firstLine(e))
	}
	return tr.String()
}

func TestFaults(t *testing.T) {
	t.Parallel()
	transports := []struct {
		name string
		open func(t *testing.T) driver
	}{
		{name: "in-process", open: func(t *testing.T) driver { return newInproc(t, echo.New(scenarioConfig)) }},
		{name: "subprocess", open: func(t *testing.T) driver { return newProcess(t, true, scenarioEnv()...) }},
		{name: "wasm", open: func(t *testing.T) driver { return newWasm(t, scenarioEnv()...) }},
	}
	tests := []struct {
		fault string
		// want are lines (or parts of lines) of the transcript, for every
		// transport unless only names some.
		want []string
		only []string
	}{
		{fault: "panic", want: []string{
			`id=1 INTERNAL data="backend panicked in Infer: echo: injected panic on 3 samples"`,
			`id=3 INTERNAL data="backend panicked in Infer: echo: injected panic on 3 samples"`}},
		{fault: "forget", want: []string{
			`id=1 INTERNAL data="backend \"echo\" returned from Infer without completing sample id 1"`,
			`id=3 INTERNAL data="backend \"echo\" returned from Infer without completing sample id 3"`}},
		{fault: "fail", want: []string{
			`id=1 UNAVAILABLE data="echo: injected failure of sample id 1"`,
			`id=2 UNAVAILABLE data="echo: injected failure of sample id 2"`}},
		{fault: "error", want: []string{
			`id=2 UNAVAILABLE data="echo: injected Infer error on 3 samples"`}},
		// A backend bug stops the run: in-process and over gRPC the SDK
		// reports it; a WASM guest logs it and passes the completion on,
		// and the host refuses the id.
		{fault: "unknown-id", want: []string{
			`event: backend bug: backend "echo": Complete for sample id 1000001, which is not in this Infer call`}},
		// The second serve reports a first token, then a completion, for
		// sample 1: two violations, and the driver stops at the first
		// fatal event, so either may be the one the transcript has.
		{fault: "duplicate-id", want: []string{
			`for sample id 1, which was completed before`}},
		{fault: "exit", only: []string{"subprocess", "wasm"}},
		{fault: "grow", only: []string{"wasm"}, want: []string{`event: host: the guest trapped`}},
	}
	for _, tt := range tests {
		for _, tr := range transports {
			if tt.only != nil && !contains(tt.only, tr.name) {
				continue
			}
			t.Run(tt.fault+"/"+tr.name, func(t *testing.T) {
				t.Parallel()
				d := tr.open(t)
				got := faultRun(t, d, tt.fault, nil)
				for _, w := range tt.want {
					assert.Contains(t, got, w)
				}
				switch {
				case tt.fault == "exit" && tr.name == "subprocess":
					p := d.(*process)
					assert.Contains(t, got, "event: host: session ended")
					assert.Eventually(t, func() bool { return p.client.Exited() }, waitTimeout, 10*time.Millisecond, "the plugin exited")
					assert.Contains(t, p.stderr(), "echo: injected exit on 3 samples")
				case tt.fault == "exit":
					assert.Contains(t, got, "event: host: the guest exited with code 3")
				case tt.fault == "grow":
					assert.Contains(t, d.(*wasm).errOut.String(), "out of memory")
				case tt.fault == "unknown-id" && tr.name == "wasm", tt.fault == "duplicate-id" && tr.name == "wasm":
					assert.Contains(t, got, "which is not in flight")
				}
				if tt.fault == "panic" && tr.name != "wasm" {
					// Every sample fails with the panic's value; the stack,
					// naming the panicking function, is logged once.
					cs := d.Issue(t, query(50, 1))
					if assert.Len(t, cs, 1) {
						assert.Equal(t, "backend panicked in Infer: echo: injected panic on sample id 50", string(cs[0].Data))
					}
					if p, ok := d.(*process); ok {
						assert.Equal(t, 1, strings.Count(p.stderr(), "examples/echo.(*Backend).misbehave"), p.stderr())
					}
				}
			})
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestStallCanceled: when the host abandons a session (its stream is
// canceled, as when it gives up on a stalled plugin), the Infer calls in
// progress see their context canceled, and the plugin still answers and
// closes.
func TestStallCanceled(t *testing.T) {
	t.Parallel()
	d := newProcess(t, true)
	require.Equal(t, abi.OK, abi.Code(d.Info(t).GetStatus().GetCode()))
	require.Equal(t, abi.OK, abi.Code(d.Load(t, &backendv1.LoadRequest{Options: map[string]string{echo.OptFault: "stall"}}).GetCode()))
	require.Equal(t, abi.OK, abi.Code(d.LoadSamples(t, scenarioSamples()).GetCode()))
	s := d.session(t)
	require.NoError(t, s.Send(&backendv1.HostMessage{Kind: &backendv1.HostMessage_Issue{Issue: &backendv1.Issue{Samples: pack(query(1, 1, 2))}}}))
	d.cancel()
	<-d.recv
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	pong, err := d.rpc.Ping(ctx, &backendv1.PingRequest{Nonce: 7})
	require.NoError(t, err)
	assert.Equal(t, uint64(7), pong.GetNonce())
	resp, err := d.rpc.Close(ctx, &backendv1.CloseRequest{})
	require.NoError(t, err)
	assert.Equal(t, abi.OK, abi.Code(resp.GetStatus().GetCode()), resp.GetStatus().GetMessage())
	assert.NotContains(t, d.stderr(), "panic")
}
