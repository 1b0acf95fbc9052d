//go:build wasip1

package sdk

import (
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
)

// The exports of ABI v1 (abi/wasm.go, docs/abi.md). Control calls take a
// protobuf request in a buffer from alloc, reply through the host's reply
// import and return the reply's status code.

//go:wasmexport mlperf_v1_abi_version
func wasmABIVersion() uint32 { return abi.Version }

//go:wasmexport mlperf_v1_alloc
func wasmAlloc(size uint32) uint32 {
	b := make([]byte, max(size, 1))
	p := addr(b)
	bufs[p] = b
	return p
}

//go:wasmexport mlperf_v1_free
func wasmFree(ptr uint32) { delete(bufs, ptr) }

// control runs one control call: do gets the request's bytes and returns
// the response, or an error that empty (a response of the right type)
// then carries.
func control(ptr, n uint32, empty response, do func(g *wasmGuest, req []byte) (response, error)) (code uint32) {
	defer recovered(&code, empty)
	g := guest
	if g == nil {
		return uint32(failed(empty, errNotRegistered))
	}
	b, err := buffer(ptr, uint64(n))
	if err != nil {
		return uint32(failed(empty, err))
	}
	resp, err := do(g, b)
	if err != nil {
		return uint32(failed(empty, err))
	}
	return uint32(reply(resp))
}

// unmarshal decodes a small control request.
func unmarshal(b []byte, m proto.Message) error {
	if err := proto.Unmarshal(b, m); err != nil {
		return Errorf(abi.InvalidArgument, "%v", err)
	}
	return nil
}

//go:wasmexport mlperf_v1_info
func wasmInfo(ptr, n uint32) uint32 {
	return control(ptr, n, &backendv1.InfoResponse{}, func(g *wasmGuest, b []byte) (response, error) {
		var req backendv1.InfoRequest
		if err := unmarshal(b, &req); err != nil {
			return nil, err
		}
		return g.srv.Info(&req), nil
	})
}

//go:wasmexport mlperf_v1_load
func wasmLoad(ptr, n uint32) uint32 {
	return control(ptr, n, &backendv1.LoadResponse{}, func(g *wasmGuest, b []byte) (response, error) {
		m, err := decodeLoadRequest(b)
		if err != nil {
			return nil, Errorf(abi.InvalidArgument, "%v", err)
		}
		// The model's bytes alias the request buffer: a backend that keeps
		// them keeps the buffer alive after the host frees it.
		return g.srv.Load(g.ctx, &backendv1.LoadRequest{ModelPath: m.path, ModelBytes: m.bytes, Options: m.options, Run: m.run, Inputs: m.inputs}), nil
	})
}

//go:wasmexport mlperf_v1_load_samples
func wasmLoadSamples(ptr, n uint32) uint32 {
	return control(ptr, n, &backendv1.LoadSamplesResponse{}, func(g *wasmGuest, b []byte) (response, error) {
		r, err := decodeLoadSamplesRequest(b)
		if err != nil {
			return nil, Errorf(abi.InvalidArgument, "%v", err)
		}
		if r.hasArena {
			return nil, Errorf(abi.InvalidArgument, "a WASM guest cannot map a shared arena: send samples inline")
		}
		samples := make([]LoadedSample, len(r.samples))
		for i, s := range r.samples {
			if s.data == nil && s.length != 0 {
				return nil, Errorf(abi.InvalidArgument, "sample index %d: %d bytes but no data", s.index, s.length)
			}
			samples[i] = LoadedSample{Index: s.index, Data: s.data, refs: s.tensors}
			if s.data == nil {
				samples[i].Data = []byte{}
			}
		}
		g.endSession()
		resp := g.srv.LoadSamples(g.ctx, samples, nil)
		if resp.GetStatus().GetCode() == uint32(abi.OK) {
			// The buffer is the guest's now: the samples point into it, and
			// the garbage collector frees it once they are unloaded.
			delete(bufs, ptr)
		}
		return resp, nil
	})
}

//go:wasmexport mlperf_v1_unload_samples
func wasmUnloadSamples(ptr, n uint32) uint32 {
	return control(ptr, n, &backendv1.UnloadSamplesResponse{}, func(g *wasmGuest, b []byte) (response, error) {
		var req backendv1.UnloadSamplesRequest
		if err := unmarshal(b, &req); err != nil {
			return nil, err
		}
		g.endSession()
		return g.srv.UnloadSamples(g.ctx, &req), nil
	})
}

//go:wasmexport mlperf_v1_warmup
func wasmWarmup(ptr, n uint32) uint32 {
	return control(ptr, n, &backendv1.WarmupResponse{}, func(g *wasmGuest, b []byte) (response, error) {
		if err := unmarshal(b, &backendv1.WarmupRequest{}); err != nil {
			return nil, err
		}
		return g.srv.Warmup(g.ctx), nil
	})
}

//go:wasmexport mlperf_v1_close
func wasmClose(ptr, n uint32) uint32 {
	return control(ptr, n, &backendv1.CloseResponse{}, func(g *wasmGuest, b []byte) (response, error) {
		if err := unmarshal(b, &backendv1.CloseRequest{}); err != nil {
			return nil, err
		}
		g.endSession()
		return g.srv.Close(), nil
	})
}

// session returns the session, opened at the first issue or flush.
func (g *wasmGuest) session() (*Session, error) {
	if g.sess == nil {
		s, err := g.srv.OpenSession(g.ctx, g.out)
		if err != nil {
			return nil, err
		}
		g.sess = s
	}
	return g.sess, nil
}

// endSession ends the session before a control call that needs none.
func (g *wasmGuest) endSession() {
	if g.sess != nil {
		g.sess.End()
		g.sess = nil
	}
}

// wasmIssue runs count issue records at ptr and completes every sample
// before it returns. It returns OK, or the first non-OK code the host's
// complete returned.
//
//go:wasmexport mlperf_v1_issue
func wasmIssue(ptr, count uint32) (code uint32) {
	defer func() {
		if r := recover(); r != nil {
			if guest != nil {
				guest.log.Error(newPanicError("the SDK's issue", r).Error())
			}
			code = uint32(abi.Internal)
		}
	}()
	g := guest
	if g == nil {
		return uint32(abi.FailedPrecondition)
	}
	b, err := buffer(ptr, uint64(count)*abi.IssueRecordSize)
	if err != nil {
		g.log.Error(err.Error())
		return uint32(CodeOf(err))
	}
	sess, err := g.session()
	if err != nil {
		recs := abi.IssueRecords(b)
		for i := range recs.Len() {
			g.out.Complete(recs.At(i).ID, CodeOf(err), []byte(err.Error()), 0)
		}
		return uint32(g.out.finish())
	}
	if err := sess.Issue(b); err != nil {
		g.log.Error(err.Error())
	}
	return uint32(g.out.finish())
}

// wasmFlush runs the backend's Flush, if any.
//
//go:wasmexport mlperf_v1_flush
func wasmFlush() (code uint32) {
	defer func() {
		if r := recover(); r != nil {
			code = uint32(abi.Internal)
		}
	}()
	g := guest
	if g == nil {
		return uint32(abi.FailedPrecondition)
	}
	sess, err := g.session()
	if err != nil {
		return uint32(CodeOf(err))
	}
	if err := sess.Flush(); err != nil {
		return uint32(CodeOf(err))
	}
	code, g.out.flushed = uint32(g.out.flushed), abi.OK
	return code
}
