package codesandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// sysProcAttr puts the launcher in a process group of its own and, when
// isolated, in new user, network, mount, PID and IPC namespaces, its
// user root there and the caller outside.
func sysProcAttr(isolated bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if isolated {
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	return a
}

// namespacesRefused: starting failed because the kernel does not let
// this process make the namespaces.
func namespacesRefused(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EUSERS)
}

// killAll kills the launcher's process group; in its PID namespace,
// killing its first process kills the rest.
func killAll(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return cmd.Process.Kill()
}

// exitOf is a process's exit status and the signal that killed it.
func exitOf(st *os.ProcessState) (int, string) {
	if st == nil {
		return -1, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return st.ExitCode(), ""
}

// rlimitNPROC is Linux's RLIMIT_NPROC, which package syscall lacks.
const rlimitNPROC = 6

// Main is the launcher: in its namespaces (where Run made them) it
// builds the child's root file system, sets the limits and executes the
// command; args are what followed [LaunchArg]. It returns only when it
// could not, and the caller's main then prints [LaunchPrefix] and the
// error to stderr and exits with [LaunchFailed].
//
// # Notes
//
// Main changes the process itself (its mounts, root, directory, limits)
// and replaces it with the command: only a main may call it.
func Main(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return errors.New("want the limits, --, then the command")
	}
	var lim limits
	if err := json.Unmarshal([]byte(args[0]), &lim); err != nil {
		return fmt.Errorf("limits: %w", err)
	}
	argv := args[2:]
	dir := lim.Dir
	if lim.Isolated {
		if err := newRoot(lim.Dir); err != nil {
			return fmt.Errorf("root file system: %w", err)
		}
		dir = "/work"
	}
	if err := os.Chdir(dir); err != nil {
		return err
	}
	// Everything the rest allocates is made before the address-space
	// limit binds: the launcher itself may already map more than it
	// allows, and the Go runtime would then fail to grow its heap.
	var filter *processFilter
	if !lim.Processes {
		var err error
		if filter, err = newProcessFilter(); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	}
	pathp, argvp, envp, err := execArgs(commandPath(argv[0]), argv,
		[]string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir, "LANG=C.UTF-8"})
	if err != nil {
		return err
	}
	rlimits := [...]struct {
		res int
		v   syscall.Rlimit
	}{
		{syscall.RLIMIT_CPU, syscall.Rlimit{Cur: lim.CPUSeconds, Max: lim.CPUSeconds}},
		{syscall.RLIMIT_AS, syscall.Rlimit{Cur: lim.Memory, Max: lim.Memory}},
		{syscall.RLIMIT_FSIZE, syscall.Rlimit{Cur: lim.FileSize, Max: lim.FileSize}},
		{syscall.RLIMIT_CORE, syscall.Rlimit{}},
		{rlimitNPROC, syscall.Rlimit{Cur: max(lim.Tasks, 1), Max: max(lim.Tasks, 1)}},
	}
	for i := range rlimits {
		if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, 0, uintptr(rlimits[i].res),
			uintptr(unsafe.Pointer(&rlimits[i].v)), 0, 0, 0); e != 0 {
			return fmt.Errorf("rlimit %d: %w", rlimits[i].res, e)
		}
	}
	if filter != nil {
		if err := filter.install(); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(pathp)),
		uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	runtime.KeepAlive(rlimits)
	return e
}

// commandPath is name, or where the sandbox's PATH finds it.
func commandPath(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	for _, d := range []string{"/usr/bin", "/bin"} {
		if st, err := os.Stat(filepath.Join(d, name)); err == nil && !st.IsDir() {
			return filepath.Join(d, name)
		}
	}
	return name
}

// execArgs are execve's arguments as C strings.
func execArgs(path string, argv, env []string) (*byte, []*byte, []*byte, error) {
	pathp, err := syscall.BytePtrFromString(path)
	if err != nil {
		return nil, nil, nil, err
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return nil, nil, nil, err
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return nil, nil, nil, err
	}
	return pathp, argvp, envp, nil
}

// The host directories the child sees read-only, and the devices it
// may open.
var (
	roDirs  = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}
	devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}
)

// newRoot makes the child's root: a tmpfs with the host's roDirs bound
// read-only (a symbolic link where the host has one), the devices, a
// /proc of its PID namespace and dir at /work, then pivots into it.
func newRoot(dir string) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	root := filepath.Join(dir, rootName)
	if err := os.Mkdir(root, 0o700); err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", root, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size=1m,mode=0755"); err != nil {
		return fmt.Errorf("tmpfs: %w", err)
	}
	for _, d := range roDirs {
		st, err := os.Lstat(d)
		if err != nil {
			continue
		}
		dst := filepath.Join(root, d)
		if st.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(d)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, dst); err != nil {
				return err
			}
			continue
		}
		if err := bind(d, dst, true, true); err != nil {
			return err
		}
	}
	if err := os.Mkdir(filepath.Join(root, "dev"), 0o755); err != nil {
		return err
	}
	for _, d := range devices {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		if err := bind(d, filepath.Join(root, d), false, false); err != nil {
			return err
		}
	}
	// Not recursive: the root's tmpfs below dir stays out of /work.
	if err := bind(dir, filepath.Join(root, "work"), false, false); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(root, "proc"), 0o555); err != nil {
		return err
	}
	if err := syscall.Mount("proc", filepath.Join(root, "proc"), "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("proc: %w", err)
	}
	if err := readOnlyBelow(root); err != nil {
		return err
	}
	old := filepath.Join(root, ".old")
	if err := os.Mkdir(old, 0o700); err != nil {
		return err
	}
	if err := syscall.PivotRoot(root, old); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	if err := syscall.Unmount("/.old", syscall.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the host's root: %w", err)
	}
	if err := os.Remove("/.old"); err != nil {
		return err
	}
	// The root itself becomes read-only: nothing new at its top.
	return remountReadOnly("/")
}

// bind bind-mounts src (a directory, or a file) at dst, with its
// submounts when rec, and remounts it read-only when ro.
func bind(src, dst string, rec, ro bool) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if st.IsDir() {
		err = os.MkdirAll(dst, 0o755)
	} else {
		err = os.WriteFile(dst, nil, 0o644)
	}
	if err != nil {
		return err
	}
	flags := uintptr(syscall.MS_BIND)
	if rec {
		flags |= syscall.MS_REC
	}
	if err := syscall.Mount(src, dst, "", flags, ""); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	if ro {
		return remountReadOnly(dst)
	}
	return nil
}

// lockedFlags are the flags a mount made in a user namespace must keep
// from the mount it copies.
const lockedFlags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC | syscall.MS_NOATIME | syscall.MS_NODIRATIME | syscall.MS_RELATIME

// remountReadOnly makes the mount at path read-only, keeping its locked
// flags.
func remountReadOnly(path string) error {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(path, &fs); err != nil {
		return err
	}
	flags := uintptr(syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY) | uintptr(fs.Flags)&lockedFlags
	if err := syscall.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("read-only %s: %w", path, err)
	}
	return nil
}

// readOnlyBelow remounts read-only every mount below root that came with
// a recursive bind of a read-only directory (the host's submounts of
// /usr, /etc, ...): those under root but its own, /work, /proc and /dev.
func readOnlyBelow(root string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var below []string
	sc := bufio.NewScanner(io.LimitReader(f, 1<<24))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		rel, ok := strings.CutPrefix(mp, root+"/")
		if !ok {
			continue
		}
		top, _, _ := strings.Cut(rel, "/")
		if top == "work" || top == "proc" || top == "dev" || !strings.Contains(rel, "/") {
			continue
		}
		below = append(below, mp)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, mp := range below {
		if err := remountReadOnly(mp); err != nil && !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.EACCES) {
			return err
		}
	}
	return nil
}

// unescapeMount undoes mountinfo's octal escapes ("\040" for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
