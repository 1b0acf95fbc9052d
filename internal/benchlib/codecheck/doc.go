// Package codecheck judges generated programs by running them against
// their tests with a language's toolchain, in the code sandbox
// (internal/benchlib/codesandbox): a [Job] is the files of one program,
// an optional compile command (a trusted compiler, which may start its
// passes as processes) and the run command (the untrusted program, which
// may start threads, no process); [Checker] runs jobs a bounded number at
// a time, each step in its own time limit; [Need] says which program of
// a toolchain is missing from the sandbox's PATH.
//
// What a benchmark's harness assembles (the program text, the commands,
// how a pass shows) is the benchmark's; this package knows no language.
//
// Package codecheck imports only the standard library and
// internal/benchlib/codesandbox; it must never import a benchmark's room
// (internal/bench/...), host, loadgen, sdk, plugins or cmd.
package codecheck
