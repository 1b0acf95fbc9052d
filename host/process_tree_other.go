//go:build !linux

package host

// treeWays: only Linux has PID namespaces.
func treeWays() []treeWay { return nil }

func namespaceRefused(error) bool { return false }
