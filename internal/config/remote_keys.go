package config

import (
	"fmt"
	"net"
	"strconv"
	"time"
)

// The keys of a run whose plugin is served by `mlperf-host serve` on
// another machine.
const (
	// KeyRemoteAddress is the server's HOST:PORT (--remote); empty: the
	// plugin runs here.
	KeyRemoteAddress = "remote.address"
	// KeyRemoteCA, KeyRemoteCert and KeyRemoteKey are PEM files: the CA
	// that signed the server's certificate, and this host's certificate
	// and key.
	KeyRemoteCA   = "remote.ca"
	KeyRemoteCert = "remote.cert"
	KeyRemoteKey  = "remote.key"
	// KeyRemoteServerName is the name the server's certificate must
	// carry; empty: the address's host.
	KeyRemoteServerName = "remote.server_name"
	// KeyRemoteInsecure allows plaintext to a loopback address (tests).
	KeyRemoteInsecure = "remote.insecure_loopback"
	// KeyRemoteNetworkDivision sends each query's sample bytes with the
	// query, in the timed path, as the MLPerf Network division requires.
	KeyRemoteNetworkDivision = "remote.network_division"
	// KeyRemoteDialTimeout bounds each attempt to connect to the server:
	// the TCP connection and the TLS handshake.
	KeyRemoteDialTimeout = "remote.dial_timeout"
)

// RemoteConfig is the remote.* keys.
type RemoteConfig struct {
	Address          string
	CA, Cert, Key    string
	ServerName       string
	InsecureLoopback bool
	NetworkDivision  bool
	DialTimeout      time.Duration
}

func remoteKeySpecs() []keySpec {
	path := checker{"a path", anyString}
	return []keySpec{
		{key: KeyRemoteAddress, help: "HOST:PORT of an `mlperf-host serve` whose plugin the run uses (docs/remote.md)",
			checker: checker{"HOST:PORT", hostPort}},
		{key: KeyRemoteCA, help: "PEM file of the CA that signed the remote server's certificate", checker: path},
		{key: KeyRemoteCert, help: "PEM file of this host's certificate, for mutual TLS", checker: path},
		{key: KeyRemoteKey, help: "PEM file of this host's private key", checker: path},
		{key: KeyRemoteServerName, help: "name the server's certificate must carry (default: the address's host)", checker: path},
		with(keySpec{key: KeyRemoteInsecure, def: "0", help: "1: plaintext to a loopback address (tests only; never across machines)"},
			oneOf("0", "1")),
		with(keySpec{key: KeyRemoteNetworkDivision, def: "0", help: "1: the Network division: each query carries its samples' bytes, in the timed path (docs/remote.md)"},
			oneOf("0", "1")),
		{key: KeyRemoteDialTimeout, def: "10s", help: "longest wait to connect to the remote server: TCP connection and TLS handshake",
			checker: checker{"a Go duration above 0, such as 10s", positiveDuration}},
	}
}

func positiveDuration(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return err
	}
	if d <= 0 {
		return errBad
	}
	return nil
}

func hostPort(v string) error {
	if v == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		return err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("port %q: %w", port, err)
	}
	return nil
}

// buildRemote sets the remote plugin's fields from the checked keys.
func (c *Config) buildRemote(get func(string) string) {
	c.Remote = RemoteConfig{Address: get(KeyRemoteAddress), CA: get(KeyRemoteCA), Cert: get(KeyRemoteCert), Key: get(KeyRemoteKey),
		ServerName: get(KeyRemoteServerName), InsecureLoopback: get(KeyRemoteInsecure) == "1",
		NetworkDivision: get(KeyRemoteNetworkDivision) == "1"}
	c.Remote.DialTimeout, _ = time.ParseDuration(get(KeyRemoteDialTimeout))
}
