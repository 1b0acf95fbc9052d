package config

import "github.com/mlperf-host/mlperf-host/abi"

// Suggest returns the candidates close to name, closest first, by the same
// rule that suggests a plugin's option names ([abi.CloseMatches]): the same
// but for case, within an edit distance of about a third of the name's
// length, or sharing four letters or more of prefix or suffix; at most
// three.
func Suggest(name string, candidates []string) []string {
	return abi.CloseMatches(name, candidates)
}
