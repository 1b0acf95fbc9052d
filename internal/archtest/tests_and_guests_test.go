package archtest

import (
	"slices"
	"strings"
	"testing"
)

// testExceptions are edges a package's tests may take that the table
// forbids its code, each with its reason. Keys are packages and values
// prefixes of import paths, both relative to the module when ours.
var testExceptions = map[string][]string{
	// The transport benchmarks' in-process baseline: an sdk.Backend served
	// through the SDK's own session with no transport between
	// (internal/inproc), so that each transport's row is its cost alone;
	// and sdktest.GoBuild, the module's one way to build what tests run.
	// internal/testcerts: the certificates of the remote transport's
	// mutual TLS tests, which cmd's tests share.
	"host": {"sdk", "internal/inproc", "internal/testcerts"},
	// The openai plugin's TLS tests: HTTPS and mutual TLS against the
	// canned server, with the same test certificates.
	"plugins/openai/backend": {"internal/testcerts"},
	// The echo tests run its WASM build in wazero as the host does, without
	// importing the host.
	"examples/echo": {"github.com/tetratelabs/wazero"},
	// The linker's tests run the modules it links in wazero, as the host
	// would run them.
	"plugins/internal/wasmlink": {"github.com/tetratelabs/wazero"},
	// The SIMD kernels' fuzz runs their module alone in wazero.
	"plugins/onnx/internal/kernels/wasmsimd": {"github.com/tetratelabs/wazero"},
}

// testException reports whether the tests of rel may import imp (relative
// to the module when ours) by an exception.
func testException(rel, imp string) bool {
	return slices.ContainsFunc(testExceptions[rel], func(e string) bool { return under(imp, e) })
}

// TestTestImports applies the table to test files too: a package's tests
// import only what its code may, plus its own package (external tests),
// the conformance kits' testify and the exceptions above.
func TestTestImports(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range pkgs {
				rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
				if !ok || !r.applies(rel) {
					continue
				}
				for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
					if dep, ours := strings.CutPrefix(imp, module+"/"); ours {
						if !r.allowsOurs(rel, dep) && !testException(rel, dep) {
							t.Errorf("%s's tests import %s: %s", rel, dep, r.name)
						}
						continue
					}
					if isStd(imp) || r.thirdParty == nil {
						continue
					}
					if !hasPrefix(imp, r.thirdParty) && !hasPrefix(imp, testKit) && !testException(rel, imp) {
						t.Errorf("%s's tests import third-party %s: %s", rel, imp, r.name)
					}
				}
			}
		})
	}
}

// gRPCAndPlugin are what a WASM guest must not link: gRPC and go-plugin
// are for subprocess plugins (20 MB of a guest's 26 MB when linked).
var gRPCAndPlugin = []string{"google.golang.org/grpc", "github.com/hashicorp/"}

// TestGuestPackagesWithoutGRPC: abi/ keeps gRPC in abi/backendv1grpc, and
// what a WASM guest links (abi/ but that package, and sdk built for
// GOOS=wasip1) has neither gRPC nor go-plugin. `make test` builds abi/
// and sdk/ for wasip1.
func TestGuestPackagesWithoutGRPC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		// guest reports whether a package must stay free of gRPC.
		guest func(rel string) bool
	}{
		{name: "native abi", guest: abiNotGRPC},
		{name: "wasip1 abi and sdk", env: []string{"GOOS=wasip1", "GOARCH=wasm"},
			guest: func(rel string) bool { return abiNotGRPC(rel) || rel == "sdk" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checked := 0
			for _, p := range listPackages(t, tt.env...) {
				rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
				if !ok || !tt.guest(rel) {
					continue
				}
				checked++
				for _, dep := range p.Deps {
					if hasPrefix(dep, gRPCAndPlugin) {
						t.Errorf("%s depends on %s: only abi/backendv1grpc and sdk's native files may link gRPC or go-plugin", rel, dep)
					}
				}
			}
			if checked == 0 {
				t.Error("no package checked")
			}
		})
	}
}

func abiNotGRPC(rel string) bool { return under(rel, "abi") && !under(rel, "abi/backendv1grpc") }

func hasPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}
