package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/hashicorp/go-plugin/runner"
)

// ReattachConfig says where an already-running subprocess plugin serves:
// the start of remote mode. A plugin started by hand in serve mode prints
// it as one JSON line, e.g.
//
//	{"plugin":"trt","abi_major":1,"pid":4242,"network":"unix","address":"/tmp/plugin1234"}
//
// and a later host run attaches to it with [Reattach] instead of starting
// it again (keeping, say, a loaded TensorRT engine across runs).
type ReattachConfig struct {
	// Plugin names the plugin in logs and errors.
	Plugin string `json:"plugin"`
	// ABIMajor is the ABI major the plugin serves.
	ABIMajor int `json:"abi_major"`
	// Pid is the plugin's process id, watched for exit; 0 when the plugin
	// is not a local process.
	Pid int `json:"pid,omitempty"`
	// Network is "unix" or "tcp"; Address is the socket path or host:port.
	// A tcp address must be a loopback one: reattaching is for a plugin on
	// this machine.
	Network string `json:"network"`
	Address string `json:"address"`
	// Token is the secret the plugin printed; every call carries it, and
	// the plugin refuses calls without it.
	Token string `json:"token"`
}

// Validate reports every missing or bad field.
func (c ReattachConfig) Validate() error {
	var errs []error
	if c.Plugin == "" {
		errs = append(errs, errors.New(`reattach config: "plugin" is missing`))
	}
	if c.ABIMajor < 1 {
		errs = append(errs, errors.New(`reattach config: "abi_major" is missing or not positive`))
	}
	if c.Pid < 0 {
		errs = append(errs, fmt.Errorf(`reattach config: "pid" %d is negative`, c.Pid))
	}
	if c.Network != "unix" && c.Network != "tcp" {
		errs = append(errs, fmt.Errorf(`reattach config: "network" %q: want "unix" or "tcp"`, c.Network))
	}
	if c.Address == "" {
		errs = append(errs, errors.New(`reattach config: "address" is missing`))
	}
	if c.Network == "tcp" && c.Address != "" && !loopback(c.Address) {
		errs = append(errs, fmt.Errorf(`reattach config: "address" %q is not a loopback address: a plugin is reattached to on this machine only`, c.Address))
	}
	if len(c.Token) < minTokenLen {
		errs = append(errs, fmt.Errorf(`reattach config: "token" is missing or shorter than %d characters: `+
			`a plugin served without one accepts calls from anyone who can reach its socket; serve it with this SDK's -serve`, minTokenLen))
	}
	return errors.Join(errs...)
}

// ParseReattachConfig decodes and validates the JSON a plugin in serve
// mode prints. Unknown fields are errors.
func ParseReattachConfig(b []byte) (ReattachConfig, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c ReattachConfig
	if err := dec.Decode(&c); err != nil {
		return ReattachConfig{}, fmt.Errorf("reattach config: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ReattachConfig{}, errors.New("reattach config: unexpected data after the JSON object")
	}
	if err := c.Validate(); err != nil {
		return ReattachConfig{}, err
	}
	return c, nil
}

// attachedRunner stands for a plugin process the host did not start: go-
// plugin waits on it, and the host never kills it.
type attachedRunner struct {
	pid    int
	detach chan struct{} // closed by the host when it lets go
}

var _ runner.AttachedRunner = (*attachedRunner)(nil)

// Wait returns when the host detaches; the host watches the pid itself.
func (r *attachedRunner) Wait(ctx context.Context) error {
	select {
	case <-r.detach:
	case <-ctx.Done():
	}
	return nil
}

// Kill does nothing: a reattached plugin outlives the host's run.
func (r *attachedRunner) Kill(context.Context) error { return nil }

func (r *attachedRunner) ID() string { return strconv.Itoa(r.pid) }

func (r *attachedRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *attachedRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// minTokenLen is the shortest token accepted: the SDK prints 64 hex digits.
const minTokenLen = 32

// loopback reports whether a host:port names a loopback address.
func loopback(address string) bool {
	h, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
