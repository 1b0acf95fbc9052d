// Package codesandbox runs untrusted programs (the code an LLM generated,
// scored against its tests) in a child process confined in time, memory,
// files, processes and network: [Run] writes the program's files into a
// fresh temporary directory and runs a command there through a launcher
// (a binary whose main calls [LaunchIfAsked] first; mlperf-host's does),
// which applies the limits and then executes the command.
//
// Where the kernel lets an unprivileged process make user namespaces, the
// child gets its own user, network (no interface but a loopback that is
// down), mount, PID and IPC namespaces: its file system is a new root
// holding the host's /usr, /bin, /lib*, /sbin and /etc read-only, a few
// devices, a /proc of its own and its directory (/work) writable; killing
// its first process kills every process in it. Always, the launcher sets
// rlimits (CPU time, address space, file size, processes and threads,
// no core files) and a seccomp filter under which fork, vfork and a clone
// that is not a thread fail with EAGAIN, clone3 with ENOSYS, so that
// threads are made with clone (RLIMIT_NPROC alone does not bind a root
// caller, even in a user namespace). A trusted program that starts
// processes, a compiler driver, runs without that filter
// ([Config.Processes]); several commands may run one after another in
// one directory ([Workdir]). Where user namespaces are not
// allowed, [Result.Isolated] is false and the limits alone hold: the
// child shares the host's network and file system (it runs in its
// directory, which is HOME and TMPDIR, but may write wherever its user
// may).
//
// Package codesandbox imports only the standard library; it must never
// import a benchmark's room (internal/bench/...), host, loadgen, sdk,
// plugins or cmd.
package codesandbox
