//go:build wasip1

package sdk

import (
	"context"
	"log/slog"

	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// Register installs b behind the WASM exports of ABI v1 (mlperf_v1_*).
// Call it from init in a package main built as a WASI reactor:
//
//	func init() { sdk.Register(echo.New()) }
//	func main() {} // never runs in a reactor
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o echo.wasm
//
// The host calls one export at a time per instance, so b's Infer calls
// never overlap; the host runs a pool of instances for parallelism.
//
// # Notes
//
// Register panics when called twice: a module serves one backend. On
// other platforms it does nothing (main calls [Serve] there), so one
// source can build both ways.
func Register(b Backend) {
	if guest != nil {
		panic("sdk.Register called twice: a WASM module serves one backend")
	}
	log := newHostLogger()
	g := &wasmGuest{
		ctx: WithLogger(context.Background(), log),
		log: log,
		srv: NewServer(b, ServerConfig{Logger: log, Inline: true}),
	}
	g.out = newWasmOutput(func(err error) { g.log.Error(err.Error()) })
	guest = g
}

// response is a control call's response message.
type response interface {
	proto.Message
	GetStatus() *backendv1.Status
}

// The WASM exports are package-level functions, so what they work on is
// package state: the registered backend, set once at init, and the
// buffers handed out by alloc.
var (
	guest *wasmGuest
	bufs  = map[uint32][]byte{}
)

// wasmGuest is the state behind the exports.
type wasmGuest struct {
	ctx  context.Context
	log  *slog.Logger
	srv  *Server
	sess *Session
	out  *wasmOutput
}

// buffer returns n bytes at ptr, which alloc must have handed out.
func buffer(ptr uint32, n uint64) ([]byte, error) {
	b, ok := bufs[ptr]
	if !ok || n > uint64(len(b)) {
		return nil, Errorf(abi.InvalidArgument, "%d bytes at 0x%x are not a buffer from %s", n, ptr, abi.ExportAlloc)
	}
	return b[:n:n], nil
}

// reply hands the host a response message and returns its status code.
func reply(m response) abi.Code {
	b, err := proto.Marshal(m)
	if err != nil {
		return abi.Internal
	}
	hostReply(bytesPtr(b), uint32(len(b)))
	return abi.Code(m.GetStatus().GetCode())
}

// failed replies with a status for err in m, a response of the call's
// type.
func failed(m response, err error) abi.Code {
	st := status(err)
	switch r := m.(type) {
	case *backendv1.InfoResponse:
		r.Status, r.AbiMajor, r.AbiMinor = st, abi.Major, abi.Minor
	case *backendv1.LoadResponse:
		r.Status = st
	case *backendv1.LoadSamplesResponse:
		r.Status = st
	case *backendv1.UnloadSamplesResponse:
		r.Status = st
	case *backendv1.WarmupResponse:
		r.Status = st
	case *backendv1.CloseResponse:
		r.Status = st
	}
	return reply(m)
}

// recovered turns a panic in the SDK itself (the backend's are recovered
// closer to it) into an INTERNAL reply.
func recovered(code *uint32, resp response) {
	r := recover()
	if r == nil {
		return
	}
	err := newPanicError("the SDK", r)
	if guest != nil {
		guest.log.Error(err.Error())
	}
	*code = uint32(failed(resp, err))
}

// errNotRegistered is every export's answer when no backend registered.
var errNotRegistered = Errorf(abi.FailedPrecondition, "no backend registered: call sdk.Register from init")
