//go:build linux

package host

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helpersMarked returns the live processes whose environment holds
// fakeHelperEnv=token.
func helpersMarked(t *testing.T, token string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	mark := []byte(fakeHelperEnv + "=" + token)
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, mark) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				continue // exited, waiting to be reaped
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitHelpers waits until the marked helpers number want or time runs
// out, and returns them.
func waitHelpers(t *testing.T, token string, want int, within time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		pids := helpersMarked(t, token)
		if len(pids) == want || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProcessTreeDiesWithPlugin: a plugin that starts a helper in a
// session of its own (out of its process group's reach) and is then
// killed by SIGKILL alone, as the parent-death signal kills it when the
// host is SIGKILLed, takes the helper with it when its tree is contained;
// when containment is off, or the system refuses it, the backend says so
// and why, and the helper does outlive it.
func TestProcessTreeDiesWithPlugin(t *testing.T) {
	t.Parallel()
	refused := treeWay{name: "refused way", apply: func(c *exec.Cmd) {
		c.SysProcAttr.Cloneflags |= syscall.CLONE_NEWPID | syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_FS
	}}
	for _, tt := range []struct {
		name    string
		cfg     Config
		outlive bool   // the helper outlives the plugin
		how     string // ProcessTree.How
		why     string // the start of ProcessTree.Why
	}{
		{name: "default", how: treeWays()[0].name},
		{name: "pid namespace", cfg: Config{treeWays: []treeWay{pidNamespace}}, how: "pid namespace"},
		{name: "user namespace", cfg: Config{treeWays: []treeWay{userPIDNamespace}}, how: "pid namespace in a user namespace"},
		{name: "off", cfg: Config{DisablePIDNamespace: true}, outlive: true, how: "process group", why: treeOff},
		// CLONE_NEWNS with CLONE_FS is EINVAL: a system refusing them all.
		{name: "refused", cfg: Config{treeWays: []treeWay{refused}}, outlive: true, how: "process group",
			why: "refused: refused way: invalid argument"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			token := strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.Quote(tt.name)
			cfg := tt.cfg
			cfg.Env = []string{fakeHelperEnv + "=" + token}
			b := openFake(t, fakeHelper, cfg)
			tree, ok := b.(ProcessTreeReporter).ProcessTree()
			require.True(t, ok, "the host started the plugin")
			require.Len(t, waitHelpers(t, token, 2, 10*time.Second), 2, "the plugin and its helper run")
			t.Cleanup(func() {
				for _, pid := range helpersMarked(t, token) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			outlive, how, why := tt.outlive, tt.how, tt.why
			if !outlive && !tree.Contained {
				// This system refuses the namespace (a container's seccomp
				// filter, user namespaces off): the plugin runs as a plain
				// group, and says why.
				t.Logf("no containment here: %s", tree)
				outlive, how, why = true, "process group", "refused: "+tt.how+": "
			}
			assert.Equal(t, how, tree.How)
			assert.Equal(t, !outlive, tree.Contained)
			assert.True(t, strings.HasPrefix(tree.Why, why), tree.Why)
			require.NoError(t, syscall.Kill(b.(*processBackend).pid, syscall.SIGKILL), "the plugin alone")
			if outlive {
				assert.Contains(t, tree.String(), "can outlive it")
				assert.Len(t, waitHelpers(t, token, 1, 5*time.Second), 1, "the helper outlives the plugin")
				return
			}
			assert.Contains(t, tree.String(), "dies with it")
			assert.Empty(t, waitHelpers(t, token, 0, 5*time.Second), "the helper died with the plugin")
		})
	}
}
