// Package progress draws the live progress line of a run on a terminal:
// elapsed and expected time, queries issued and completed, and the current
// rate. It redraws in place with a carriage return, at most a few times a
// second, and erases itself when the run ends.
//
// Package progress imports only the standard library; it must never import
// host, loadgen, sdk, plugins or cmd. The caller decides whether the output
// is a terminal.
package progress
