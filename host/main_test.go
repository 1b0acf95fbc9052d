package host

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakePluginEnv); mode != "" {
		serveFakePlugin(mode)
	}
	os.Exit(m.Run())
}
