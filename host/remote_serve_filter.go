package host

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// callFilter checks and rewrites the messages of one Backend method on
// their way through serve: up, a host's message to the plugin; down, the
// plugin's answer (nil: as it is).
type callFilter struct {
	up   func(ctx context.Context, p *remoteProxy, plugin servedConn, msg []byte) ([]byte, error)
	down func(p *remoteProxy, msg []byte) ([]byte, error)
}

// backendFilters are the only methods serve forwards: the Backend
// service's. go-plugin's own services (its controller's Shutdown, the
// broker, stdio) and anything else are refused before the plugin.
var backendFilters = map[string]callFilter{
	backendv1grpc.Backend_Info_FullMethodName:          {up: passUp, down: infoDown},
	backendv1grpc.Backend_Load_FullMethodName:          {up: loadUp},
	backendv1grpc.Backend_LoadSamples_FullMethodName:   {up: loadSamplesUp},
	backendv1grpc.Backend_UnloadSamples_FullMethodName: {up: unloadSamplesUp},
	backendv1grpc.Backend_Warmup_FullMethodName:        {up: passUp},
	backendv1grpc.Backend_Session_FullMethodName:       {up: sessionUp},
	backendv1grpc.Backend_Ping_FullMethodName:          {up: passUp},
	backendv1grpc.Backend_Close_FullMethodName:         {up: passUp},
	// Members (v1.3): an empty request, figures back.
	backendv1grpc.Backend_Members_FullMethodName: {up: passUp},
}

func passUp(_ context.Context, _ *remoteProxy, _ servedConn, msg []byte) ([]byte, error) {
	return msg, nil
}

// errSharedMemory is a remote host naming shared memory: a file of this
// machine it would have the plugin map.
var errSharedMemory = status.Error(codes.PermissionDenied,
	"remote plugin: a remote host cannot use shared memory (samples and records travel in messages)")

// remoteCapsCleared are the capabilities a remote host never gets: the
// plugin maps files of this machine for them.
const remoteCapsCleared = abi.CapSharedArena | abi.CapSharedRing

// infoDown clears the capabilities a remote host cannot use: shared
// memory, and opening a model by path where serve allows no server path
// (the host then sends the model's bytes).
func infoDown(p *remoteProxy, msg []byte) ([]byte, error) {
	var resp backendv1.InfoResponse
	if err := proto.Unmarshal(msg, &resp); err != nil {
		return nil, fmt.Errorf("the plugin's Info does not decode: %w", err)
	}
	clear := remoteCapsCleared
	if p.models == nil {
		clear |= abi.CapModelPath
	}
	resp.Capabilities &^= uint64(clear)
	return proto.Marshal(&resp)
}

// loadSamplesUp refuses an arena, and samples past the host's bound.
func loadSamplesUp(_ context.Context, p *remoteProxy, _ servedConn, msg []byte) ([]byte, error) {
	var req backendv1.LoadSamplesRequest
	if err := proto.Unmarshal(msg, &req); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "remote plugin: a LoadSamples request that does not decode: %v", err)
	}
	if req.GetArena() != nil {
		return nil, errSharedMemory
	}
	if err := p.load(req.GetSamples()); err != nil {
		return nil, err
	}
	return msg, nil
}

// unloadSamplesUp counts the samples a host unloads.
func unloadSamplesUp(_ context.Context, p *remoteProxy, _ servedConn, msg []byte) ([]byte, error) {
	var req backendv1.UnloadSamplesRequest
	if err := proto.Unmarshal(msg, &req); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "remote plugin: an UnloadSamples request that does not decode: %v", err)
	}
	p.unload(req.GetIndices())
	return msg, nil
}

// The field numbers of HostMessage serve looks for: ring_attach and
// doorbell (shared rings).
const (
	hostMessageRingAttach = 3
	hostMessageDoorbell   = 4
)

// sessionUp refuses shared rings and loads a Network division query's
// samples into the plugin. It scans tags only: an Issue without sample
// data passes without being decoded.
func sessionUp(ctx context.Context, p *remoteProxy, plugin servedConn, msg []byte) ([]byte, error) {
	if len(fields(msg, hostMessageRingAttach)) > 0 || len(fields(msg, hostMessageDoorbell)) > 0 {
		return nil, errSharedMemory
	}
	if !carriesSamples(msg) {
		return msg, nil
	}
	// The Network division: the query's samples first.
	out, err := loadCarried(ctx, plugin.conn, msg)
	if err != nil {
		if e := p.hostError(plugin, backendv1grpc.Backend_LoadSamples_FullMethodName, err); status.Code(e) == codes.Unavailable {
			return nil, e
		}
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	return out, nil
}
