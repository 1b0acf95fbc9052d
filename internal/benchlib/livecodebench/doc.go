// Package livecodebench judges generated programs as LiveCodeBench's
// code-generation scenario judges them: [ReadProblems] reads its problems
// (code_generation_lite's JSON lines files, the private tests packed or
// not), and a [Grader] runs each program against its problem's public
// then private tests in the code sandbox (internal/benchlib/codesandbox),
// with a harness that grades as LiveCodeBench's run_test does (60 seconds
// a test); a program passes when every test does. deepseek-r1's and
// gpt-oss-120b's scorers share it.
//
// Package livecodebench imports only the standard library and the other
// shared parts (codesandbox, pickle); it must never import a benchmark's
// room (internal/bench/...), host, loadgen, sdk, plugins or cmd.
package livecodebench
