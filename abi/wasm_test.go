package abi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWasmNamesCarryTheMajor(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, f := range WasmExports() {
		assert.True(t, strings.HasPrefix(f.Name, "mlperf_v1_"), f.Name)
		assert.False(t, seen[f.Name], "duplicate export %s", f.Name)
		seen[f.Name] = true
	}
	assert.Equal(t, "mlperf_host_v1", HostModule)
	for _, f := range WasmImports() {
		assert.False(t, seen[f.Name], "duplicate import %s", f.Name)
		seen[f.Name] = true
	}
}

func TestVersionPacking(t *testing.T) {
	t.Parallel()
	assert.Equal(t, uint32(Version), PackVersion(Major, Minor))
	major, minor := UnpackVersion(PackVersion(3, 65535))
	assert.Equal(t, uint16(3), major)
	assert.Equal(t, uint16(65535), minor)
	assert.Equal(t, "v1.4", VersionString(Major, Minor))
}

func TestCodeString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "INVALID_ARGUMENT", InvalidArgument.String())
	assert.Equal(t, "VERSION_MISMATCH", VersionMismatch.String())
	assert.Equal(t, "CODE(77)", Code(77).String())
	assert.True(t, Unavailable.Known())
	assert.False(t, Code(77).Known())
}

func TestCapabilities(t *testing.T) {
	t.Parallel()
	c := CapFlush | CapModelPath
	assert.True(t, c.Has(CapFlush))
	assert.True(t, c.Has(CapFlush|CapModelPath))
	assert.False(t, c.Has(CapFlush|CapWarmup))
	assert.True(t, HostCapSharedArena.Has(HostCapSharedArena))
}
