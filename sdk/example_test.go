package sdk_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/sdk"
)

// upper is a whole backend: it answers each sample with its bytes in upper
// case, and fails a sample that is empty.
type upper struct{}

func (upper) Info() sdk.Info {
	return sdk.Info{Name: "upper", Version: "1.0.0", MaxBatch: 4, MaxInFlight: 1}
}

func (upper) Load(_ context.Context, m sdk.Model) error {
	if len(m.Bytes) == 0 {
		return sdk.Errorf(abi.InvalidArgument, "upper: empty model")
	}
	return nil
}

func (upper) Infer(_ context.Context, q sdk.Query, c sdk.Completer) error {
	for _, s := range q.Samples {
		if len(s.Data) == 0 {
			c.Fail(s.ID, sdk.Errorf(abi.InvalidArgument, "sample %d is empty", s.Index))
			continue
		}
		c.Complete(s.ID, bytes.ToUpper(s.Data), 0)
	}
	return nil
}

func (upper) Close() error { return nil }

// printer is where the session's results go here; over a transport the SDK
// sends them to the host.
type printer struct{ done chan struct{} }

func (p printer) Complete(id uint64, code abi.Code, data []byte, _ int64) {
	fmt.Printf("sample id %d: %s %q\n", id, code, data)
}
func (printer) FirstToken(uint64, []byte)  {}
func (p printer) Flushed(abi.Code, string) { close(p.done) }
func (printer) Violation(id uint64, err error) {
	fmt.Printf("sample id %d: backend bug: %v\n", id, err)
}

// A vendor writes a Backend and calls sdk.Serve (subprocess) or
// sdk.Register (WASM) in main. Underneath, the SDK's Server drives the
// backend in the ABI's order; here it is driven directly, as the host
// would: Info, Load, LoadSamples, then a session of queries.
func Example() {
	ctx := context.Background()
	srv := sdk.NewServer(upper{}, sdk.ServerConfig{})
	defer srv.Close()

	info := srv.Info(&backendv1.InfoRequest{HostAbiMajor: abi.Major})
	fmt.Println(info.GetName(), info.GetVersion(), "max batch", info.GetMaxBatch())
	fmt.Println("load:", abi.Code(srv.Load(ctx, &backendv1.LoadRequest{ModelBytes: []byte("weights")}).GetStatus().GetCode()))
	srv.LoadSamples(ctx, []sdk.LoadedSample{{Index: 0, Data: []byte("cat")}, {Index: 1, Data: []byte("dog")}, {Index: 2}}, nil)

	out := printer{done: make(chan struct{})}
	sess, err := srv.OpenSession(ctx, out)
	if err != nil {
		fmt.Println(err)
		return
	}
	var records []byte
	for i, index := range []uint64{1, 0, 2} {
		records = abi.AppendIssueRecord(records, abi.IssueRecord{ID: uint64(100 + i), Index: index, Flags: abi.FlagWantOutput})
	}
	_ = sess.Issue(records)
	_ = sess.Flush() // answered once the query completed
	<-out.done
	sess.End()
	// Output:
	// upper 1.0.0 max batch 4
	// load: OK
	// sample id 100: OK "DOG"
	// sample id 101: OK "CAT"
	// sample id 102: INVALID_ARGUMENT "sample 2 is empty"
}

// Errors carry a status code to the host; a plain error is INTERNAL.
func ExampleErrorf() {
	err := sdk.Errorf(abi.InvalidArgument, "option threads=%q: want a number", "many")
	fmt.Println(err)
	fmt.Println(sdk.CodeOf(fmt.Errorf("load: %w", err)))
	fmt.Println(sdk.CodeOf(errors.New("device lost")))
	fmt.Println(sdk.CodeOf(context.Canceled))
	// Output:
	// option threads="many": want a number
	// INVALID_ARGUMENT
	// INTERNAL
	// CANCELED
}

// A plugin's main reads the options it needs before Load from the
// environment the host starts it with.
func ExampleEnvOptions() {
	environ := []string{"HOME=/home/bench", "MLPERF_TENSORRT_STREAMS=2", "MLPERF_TENSORRT_ENGINE=resnet50.plan"}
	opts := sdk.EnvOptions(environ, "MLPERF_TENSORRT_")
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		fmt.Printf("%s=%s\n", k, opts[k])
	}
	// Output:
	// engine=resnet50.plan
	// streams=2
}
