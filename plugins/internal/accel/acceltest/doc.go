// Package acceltest is what the tests of the accelerator plugins share:
// building their fake C runtimes (compiled once per test binary, linked
// once per test so that tests run in parallel with private state), calling
// into them, a recording sdk.Completer, sample data, and the checks every
// plugin binary must pass. Only tests import it.
//
// The fake runtimes include cfake/fakedevice.h, the violations record and
// kernel gate they share; [Lib] calls its fake_* entry points.
//
// Package acceltest imports only sdk, abi and testing helpers; it must not
// import host, loadgen, cmd or any plugin.
package acceltest
