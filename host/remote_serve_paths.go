package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

// openModelDir opens the directory remote hosts' paths must resolve
// inside; "" is none (nil).
func openModelDir(dir string) (*os.Root, error) {
	if dir == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("serve: model directory: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("serve: model directory: %w", err)
	}
	return root, nil
}

// loadUp checks the server paths a host's Load names, the model's and
// those of the options the plugin's schema declares paths: each must
// resolve inside the model directory, and reaches the plugin as the
// absolute path it resolved to there. A refusal says the same whether
// the path exists or not.
func loadUp(ctx context.Context, p *remoteProxy, plugin servedConn, msg []byte) ([]byte, error) {
	var req backendv1.LoadRequest
	if err := proto.Unmarshal(msg, &req); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "remote plugin: a Load request that does not decode: %v", err)
	}
	var err error
	if req.ModelPath, err = p.allowedPath("the model path", req.GetModelPath()); err != nil {
		return nil, err
	}
	if len(req.GetOptions()) > 0 {
		schema, err := optionTypes(ctx, plugin)
		if err != nil {
			return nil, p.hostError(plugin, backendv1grpc.Backend_Info_FullMethodName, err)
		}
		if err := p.allowedOptions(schema, req.GetOptions()); err != nil {
			return nil, err
		}
		for name, v := range req.GetOptions() {
			if schema[name] != abi.OptionPath {
				continue
			}
			if req.Options[name], err = p.allowedPaths("option "+name, v); err != nil {
				return nil, err
			}
		}
	}
	return proto.Marshal(&req)
}

// optionTypes asks the plugin for the options it declares, by name.
func optionTypes(ctx context.Context, plugin servedConn) (map[string]abi.OptionType, error) {
	info, err := backendv1grpc.NewBackendClient(plugin.conn).Info(ctx, &backendv1.InfoRequest{HostAbiMajor: abi.Major, HostAbiMinor: abi.Minor})
	if err != nil {
		return nil, err
	}
	out := map[string]abi.OptionType{}
	for _, o := range info.GetOptions() {
		t := abi.OptionType(o.GetType())
		if t == "" {
			t = abi.OptionString
		}
		out[o.GetName()] = t
	}
	return out, nil
}

// allowedOptions refuses, naming them all, the options a host sets that
// the plugin does not declare or serve does not allow.
func (p *remoteProxy) allowedOptions(schema map[string]abi.OptionType, opts map[string]string) error {
	var refused []string
	for name := range opts {
		if _, declared := schema[name]; !declared || (p.allow != nil && !p.allow[name]) {
			refused = append(refused, name)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	slices.Sort(refused)
	p.log.Warn("remote plugin: refused options a remote host may not set", "options", strings.Join(refused, ","))
	return status.Errorf(codes.PermissionDenied,
		"remote plugin: options a remote host may not set on this server: %s (serve --allow-option names those it may; the plugin declares the rest)", strings.Join(refused, ", "))
}

// allowSet is the set of AllowOptions; nil for nil.
func allowSet(names []string) map[string]bool {
	if names == nil {
		return nil
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// allowedPaths is allowedPath of each of a list of paths separated by
// ':' (an option of type path may name several).
func (p *remoteProxy) allowedPaths(what, v string) (string, error) {
	parts := strings.Split(v, ":")
	for i, part := range parts {
		var err error
		if parts[i], err = p.allowedPath(what, part); err != nil {
			return "", err
		}
	}
	return strings.Join(parts, ":"), nil
}

// allowedPath resolves a path a host names inside the model directory:
// relative to it, or absolute within it. "" stays "".
func (p *remoteProxy) allowedPath(what, path string) (string, error) {
	if path == "" {
		return "", nil
	}
	refused := status.Errorf(codes.PermissionDenied,
		"remote plugin: %s: not a path this server allows (serve --model-dir names the one directory a remote host's paths may resolve in)", what)
	if p.models == nil {
		p.log.Warn("remote plugin: refused a server path: serve has no model directory", "what", what)
		return "", refused
	}
	dir := p.models.Name()
	rel := path
	if filepath.IsAbs(path) {
		r, err := filepath.Rel(dir, filepath.Clean(path))
		if err != nil || !filepath.IsLocal(r) {
			p.log.Warn("remote plugin: refused a server path outside the model directory", "what", what)
			return "", refused
		}
		rel = r
	}
	if !filepath.IsLocal(rel) {
		p.log.Warn("remote plugin: refused a server path outside the model directory", "what", what)
		return "", refused
	}
	// Links are followed only as far as they stay inside.
	if _, err := p.models.Stat(rel); err != nil {
		p.log.Warn("remote plugin: refused a server path", "what", what, "err", err)
		return "", refused
	}
	return filepath.Join(dir, rel), nil
}
