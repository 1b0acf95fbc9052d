package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/testcerts"
)

// netnsPair is two network namespaces joined by a veth pair: the SUT's
// at sutIP, the LoadGen's at lgIP.
type netnsPair struct {
	sut, lg     string
	sutIP, lgIP string
}

// newNetnsPair makes a namespace pair for this test, with delay added to
// every packet the LoadGen's side sends, and removes it at the end; it
// skips the test, saying why, where namespaces or netem cannot be made
// (not root, no iproute2, no veth or sch_netem in the kernel).
func newNetnsPair(t *testing.T, delay time.Duration) netnsPair {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2): ", err)
	}
	if _, err := exec.LookPath("tc"); err != nil {
		t.Skip("no tc command (iproute2): ", err)
	}
	id := fmt.Sprintf("%d%d", os.Getpid()%100000, time.Now().UnixNano()%1000)
	p := netnsPair{sut: "mlph-sut-" + id, lg: "mlph-lg-" + id, sutIP: "10.231.0.1", lgIP: "10.231.0.2"}
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := ip("netns", "add", p.sut); err != nil {
		t.Skip("cannot create a network namespace: ", err)
	}
	t.Cleanup(func() { _ = ip("netns", "del", p.sut) })
	require.NoError(t, ip("netns", "add", p.lg))
	t.Cleanup(func() { _ = ip("netns", "del", p.lg) }) // the veth pair goes with its namespaces
	vs, vl := "vs"+id, "vl"+id
	if err := ip("link", "add", vs, "netns", p.sut, "type", "veth", "peer", "name", vl, "netns", p.lg); err != nil {
		t.Skip("cannot create a veth pair: ", err)
	}
	for _, c := range [][]string{
		{"-n", p.sut, "addr", "add", p.sutIP + "/30", "dev", vs},
		{"-n", p.lg, "addr", "add", p.lgIP + "/30", "dev", vl},
		{"-n", p.sut, "link", "set", vs, "up"},
		{"-n", p.lg, "link", "set", vl, "up"},
		{"-n", p.sut, "link", "set", "lo", "up"},
		{"-n", p.lg, "link", "set", "lo", "up"},
	} {
		require.NoError(t, ip(c...))
	}
	ms := strconv.FormatInt(delay.Milliseconds(), 10) + "ms"
	if out, err := exec.Command("tc", "-n", p.lg, "qdisc", "add", "dev", vl, "root", "netem", "delay", ms).CombinedOutput(); err != nil {
		t.Skipf("cannot add a netem delay (sch_netem): %v: %s", err, out)
	}
	return p
}

// TestRemoteNetnsDelay: a SingleStream run reaching a plugin served in
// another network namespace, across a link that delays each packet of
// the LoadGen's side by 5 ms, measures every query's latency with that
// delay in it: the p50 the summary reports is at least 5 ms, whatever
// the machine's speed. The run is in the Network division (each query
// carries its sample) over mutual TLS.
func TestRemoteNetnsDelay(t *testing.T) {
	t.Parallel()
	const delay = 5 * time.Millisecond
	p := newNetnsPair(t, delay)
	dir := t.TempDir()
	plugins, entry := privateEcho(t, dir)
	ca := testcerts.NewCA(t, dir, "ca")
	valid := time.Now().Add(time.Hour)
	server, client := ca.Issue(t, dir, "server", valid), ca.Issue(t, dir, "client", valid)

	srv := startHostExe(t, dir, nil, "ip", "netns", "exec", p.sut, binary, "serve", "--plugin-dirs", plugins, "--plugin", "echo",
		"--listen", p.sutIP+":0", "--ca", server.CA, "--cert", server.Cert, "--key", server.Key)
	srv.waitStderr(t, "serving plugin echo")
	m := regexp.MustCompile(`serving plugin echo \S+ on (\S+:\d+)`).FindStringSubmatch(srv.errb.String())
	require.Len(t, m, 2, srv.errb.String())

	conf := filepath.Join(dir, "netns.conf")
	require.NoError(t, os.WriteFile(conf, []byte("*.SingleStream.min_duration = 0\n*.SingleStream.min_query_count = 64\n"), 0o644))
	r := mlperfHostCmd(t, dir, nil, "ip", "netns", "exec", p.lg, binary, "run", "--scenario", "SingleStream", "--remote", m[1],
		"--user-conf", conf, "--out", "logs", "--set", "remote.network_division=1",
		// The test CA's certificates name 127.0.0.1.
		"--set", "remote.server_name=127.0.0.1",
		"--set", "remote.ca="+client.CA, "--set", "remote.cert="+client.Cert, "--set", "remote.key="+client.Key)
	assertVerdict(t, r, filepath.Join(dir, "logs"))
	summary, err := os.ReadFile(filepath.Join(dir, "logs", "mlperf_log_summary.txt"))
	require.NoError(t, err)
	pm := regexp.MustCompile(`50\.00 percentile latency \(ns\)\s*:\s*(\d+)`).FindSubmatch(summary)
	require.Len(t, pm, 2, string(summary))
	p50, err := strconv.ParseInt(string(pm[1]), 10, 64)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Duration(p50), delay, "the p50 latency includes the link's delay")

	srv.signal(t, os.Interrupt)
	done := srv.wait(t)
	assert.Equal(t, 0, int(done.code), tail(done.stderr))
	assertNoProcess(t, entry)
}
