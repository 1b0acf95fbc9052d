package codesandbox

import (
	"errors"
	"runtime"
	"syscall"
	"unsafe"
)

// The system calls that make processes, by architecture: fork and
// vfork where the architecture has them, clone (refused unless it makes
// a thread) and clone3 (refused as unknown, ENOSYS: its flags are in
// memory a filter cannot read, and C libraries then fall back to clone).
type procCalls struct {
	audit                    uint32 // AUDIT_ARCH_*
	fork, vfork, clone, clo3 int32  // -1: none
	seccomp                  uintptr
}

var archCalls = map[string]procCalls{
	"amd64": {audit: 0xc000003e, fork: 57, vfork: 58, clone: 56, clo3: 435, seccomp: 317},
	"arm64": {audit: 0xc00000b7, fork: -1, vfork: -1, clone: 220, clo3: 435, seccomp: 277},
}

// Classic BPF, as seccomp reads it.
type sockFilter struct {
	code uint16
	jt   uint8
	jf   uint8
	k    uint32
}

type sockFprog struct {
	n      uint16
	filter *sockFilter
}

const (
	bpfLdW     = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK    = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJsetK   = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	bpfRetK    = 0x06 // BPF_RET | BPF_K
	retAllow   = 0x7fff0000
	retKill    = 0x80000000 // SECCOMP_RET_KILL_PROCESS
	retErrno   = 0x00050000 // SECCOMP_RET_ERRNO
	offNr      = 0          // seccomp_data.nr
	offArch    = 4          // seccomp_data.arch
	offArg0Lo  = 16         // seccomp_data.args[0], low half (little endian)
	cloneThrd  = 0x00010000 // CLONE_THREAD
	filterTsyn = 1          // SECCOMP_FILTER_FLAG_TSYNC
	prNoNewPrv = 38         // PR_SET_NO_NEW_PRIVS
)

// processFilter is the seccomp filter under which making a process
// fails with EAGAIN (a thread may still be made, through clone). It is
// built before the rlimits bind: installing it then allocates nothing.
type processFilter struct {
	prog    []sockFilter
	seccomp uintptr
}

// newProcessFilter builds the filter of this architecture.
func newProcessFilter() (*processFilter, error) {
	c, ok := archCalls[runtime.GOARCH]
	if !ok {
		return nil, errors.New("no seccomp filter for " + runtime.GOARCH)
	}
	eagain := uint32(retErrno | uint32(syscall.EAGAIN))
	enosys := uint32(retErrno | uint32(syscall.ENOSYS))
	p := []sockFilter{
		{code: bpfLdW, k: offArch},
		{code: bpfJeqK, jt: 1, k: c.audit},
		{code: bpfRetK, k: retKill},
		{code: bpfLdW, k: offNr},
	}
	for _, nr := range []int32{c.fork, c.vfork} {
		if nr >= 0 {
			p = append(p, sockFilter{code: bpfJeqK, jf: 1, k: uint32(nr)}, sockFilter{code: bpfRetK, k: eagain})
		}
	}
	// clone3 as a kernel without it: glibc's pthread_create then falls
	// back to clone (on ENOSYS only; EAGAIN would fail the thread).
	p = append(p, sockFilter{code: bpfJeqK, jf: 1, k: uint32(c.clo3)}, sockFilter{code: bpfRetK, k: enosys})
	p = append(p,
		sockFilter{code: bpfJeqK, jf: 3, k: uint32(c.clone)},
		sockFilter{code: bpfLdW, k: offArg0Lo},
		sockFilter{code: bpfJsetK, jt: 1, k: cloneThrd},
		sockFilter{code: bpfRetK, k: eagain},
		sockFilter{code: bpfRetK, k: retAllow},
	)
	return &processFilter{prog: p, seccomp: c.seccomp}, nil
}

// install installs the filter on every thread of the process, kept
// across exec. It makes system calls and allocates nothing, so that it
// works under an address-space limit the process already exceeds.
func (f *processFilter) install() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prNoNewPrv, 1, 0); e != 0 {
		return e
	}
	prog := sockFprog{n: uint16(len(f.prog)), filter: &f.prog[0]}
	const setModeFilter = 1 // SECCOMP_SET_MODE_FILTER
	if _, _, e := syscall.RawSyscall(f.seccomp, setModeFilter, filterTsyn, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return e
	}
	runtime.KeepAlive(f)
	return nil
}
