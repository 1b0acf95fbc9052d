// Package bridge connects the LoadGen to a plugin: [SUT] adapts a
// host.Backend to loadgen.SUT (IssueQuery becomes Backend.Issue with the
// want-output flag set for the responses the LoadGen logs, completions go
// back through the LoadGen's Responder) and [QSL] adapts a data set to
// loadgen.QSL (LoadSamplesToRAM reads the samples into an arena and hands
// them to the plugin's LoadSamples). The issue and completion paths
// allocate nothing per sample.
//
// Package bridge imports loadgen, host, abi and internal/dataset; it must
// never import sdk, plugins or cmd.
package bridge
