package abi

import (
	"os"
	"path/filepath"
	"strings"
)

// SharedMemoryDirEnv names the environment variable through which a host
// tells the subprocess plugin it starts where its shared-memory files
// (sample arenas, ring files) lie. A plugin maps only files directly in
// that directory whose names carry [SharedMemoryPrefix], whoever names
// them in a request; without the variable the directory is
// [DefaultSharedMemoryDir].
const SharedMemoryDirEnv = "MLPERF_HOST_SHM_DIR"

// SharedMemoryPrefix begins the name of every shared-memory file a host
// creates.
const SharedMemoryPrefix = "mlperf-host-"

// DefaultSharedMemoryDir is where a host puts shared-memory files when
// told nothing else: /dev/shm (a memory file system on Linux) where it
// exists, else the temporary directory.
func DefaultSharedMemoryDir() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm"
	}
	return os.TempDir()
}

// InSharedMemoryDir reports whether path names a file directly in dir
// whose name carries [SharedMemoryPrefix], and returns that name. It
// reads the path's text only; the caller opens the name inside dir
// without following links.
func InSharedMemoryDir(dir, path string) (string, bool) {
	if dir == "" || !filepath.IsAbs(path) {
		return "", false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	name := filepath.Base(path)
	if filepath.Dir(filepath.Clean(path)) != abs || !strings.HasPrefix(name, SharedMemoryPrefix) {
		return "", false
	}
	return name, true
}
