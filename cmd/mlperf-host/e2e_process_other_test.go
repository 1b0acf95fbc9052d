//go:build !linux

package main

import "testing"

func rssWrapper() (int, bool) { return 0, false }

// mlperfHostMeasured is mlperfHost: only Linux's peak memory is measured.
func mlperfHostMeasured(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return mlperfHost(t, dir, args...)
}

func processesOf(string) ([]int, bool) { return nil, false }
