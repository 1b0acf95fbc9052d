package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
)

// Open a WASM plugin, issue one query and print its completions.
func Example() {
	ctx := context.Background()
	module, err := os.ReadFile(filepath.Join("testdata", "wasm", "echo.wasm"))
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := host.OpenWASM(ctx, "watecho", module, host.Config{Instances: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	info := b.Info()
	fmt.Printf("%s %s over %s, ABI v%d.%d\n", info.Name, info.Version, info.Transport, info.ABIMajor, info.ABIMinor)

	var mu sync.Mutex
	var lines []string
	all := make(chan struct{})
	b.SetHandler(host.HandlerFuncs{OnComplete: func(batch []host.Completion) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range batch {
			// c.Data is valid only during this call: format (copy) it now.
			lines = append(lines, fmt.Sprintf("id %d: %v %x", c.ID, c.Status, c.Data))
		}
		if len(lines) == 3 {
			close(all)
		}
	}})
	if err := b.Load(ctx, host.Model{Bytes: []byte("model")}); err != nil {
		fmt.Println(err)
		return
	}
	query := []abi.IssueRecord{
		{ID: 1, Index: 7, Flags: abi.FlagWantOutput},
		{ID: 2, Index: 8, Flags: abi.FlagWantOutput},
		{ID: 3, Index: 9, Flags: abi.FlagWantOutput},
	}
	if err := b.Issue(ctx, query); err != nil {
		fmt.Println(err)
		return
	}
	select {
	case <-all:
	case <-b.Done():
		fmt.Println(b.Err())
		return
	}
	mu.Lock()
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	mu.Unlock()
	// Output:
	// watecho 0.1.0 over wasm, ABI v1.0
	// id 1: OK 0700000000000000
	// id 2: OK 0800000000000000
	// id 3: OK 0900000000000000
}

// Find plugins by name in plugin directories, each described by a
// plugin.json manifest.
func ExampleFind() {
	dir, err := os.MkdirTemp("", "plugins")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	echo := filepath.Join(dir, "echo")
	module, _ := os.ReadFile(filepath.Join("testdata", "wasm", "echo.wasm"))
	_ = os.MkdirAll(echo, 0o755)
	_ = os.WriteFile(filepath.Join(echo, "echo.wasm"), module, 0o644)
	_ = os.WriteFile(filepath.Join(echo, "plugin.json"), []byte(`{
  "name": "echo",
  "version": "0.1.0",
  "kind": "wasm",
  "abi_major": 1,
  "entry": "echo.wasm",
  "memory_limit_mib": 64
}`), 0o644)

	p, err := host.Find("echo", []string{dir, filepath.Join(dir, "not-there")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.Version, p.Kind, filepath.Base(p.Entry), p.MemoryLimitMiB, "MiB")

	_, err = host.Find("onnx", []string{dir})
	fmt.Println(errors.Is(err, host.ErrPluginNotFound))
	// Output:
	// echo 0.1.0 wasm echo.wasm 64 MiB
	// true
}
