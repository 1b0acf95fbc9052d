package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/mlperf-host/mlperf-host"

// rule says what the packages under one prefix of the module may import.
type rule struct {
	name string
	// prefix selects our packages by import path relative to the module.
	prefix string
	// ours lists prefixes of our own packages they may import directly; the
	// package's own subtree is always allowed.
	ours []string
	// thirdParty lists module prefixes allowed among all (transitive) deps;
	// nil means any, empty means standard library only.
	thirdParty []string
	// rooms applies the rule to each package below prefix on its own (a
	// benchmark's package): its own subtree is allowed, its siblings and
	// the package at prefix are not. exact applies it to the package at
	// prefix alone.
	rooms, exact bool
}

// sdkDeps are the third-party modules the SDK links (go-plugin, gRPC,
// protobuf and theirs); what a plugin links through it.
var sdkDeps = []string{
	"google.golang.org/protobuf", "google.golang.org/grpc", "google.golang.org/genproto",
	"golang.org/x/", "github.com/hashicorp/", "github.com/fatih/color", "github.com/mattn/",
	"github.com/oklog/run",
	// go-plugin still pulls the deprecated APIv1 protobuf shim.
	"github.com/golang/protobuf",
}

// testKit is what the conformance kits (sdk/sdktest, host/hosttest) link
// besides: testify and its dependencies.
var testKit = []string{
	"github.com/stretchr/testify", "github.com/davecgh/go-spew", "github.com/pmezard/go-difflib",
	"gopkg.in/yaml.v3", "go.yaml.in/yaml/",
}

func join(lists ...[]string) []string { return slices.Concat(lists...) }

var rules = []rule{
	{name: "loadgen is stdlib only", prefix: "loadgen", ours: []string{}, thirdParty: []string{}},
	{name: "abi imports nothing of ours", prefix: "abi", ours: []string{}, thirdParty: []string{
		"google.golang.org/protobuf", "google.golang.org/grpc", "google.golang.org/genproto",
		"golang.org/x/",
	}},
	{name: "sdk imports only abi", prefix: "sdk", ours: []string{"abi"}, thirdParty: join(sdkDeps, testKit)},
	{name: "host imports only abi", prefix: "host", ours: []string{"abi"},
		thirdParty: join(sdkDeps, testKit, []string{"github.com/tetratelabs/wazero"})},
	// A plugin links the SDK's modules and its vendor runtime's binding:
	// purego (no cgo) and golang.org/x/sys.
	{name: "onnx plugin imports only sdk, abi and the plugins' core", prefix: "plugins/onnx",
		ours: []string{"sdk", "abi", "plugins/internal"}, thirdParty: join(sdkDeps, []string{"github.com/ebitengine/purego"})},
	{name: "tensorrt plugin imports only sdk, abi and the plugins' core", prefix: "plugins/tensorrt",
		ours: []string{"sdk", "abi", "plugins/internal"}, thirdParty: join(sdkDeps, []string{"github.com/ebitengine/purego"})},
	{name: "qaic plugin imports only sdk, abi and the plugins' core", prefix: "plugins/qaic",
		ours: []string{"sdk", "abi", "plugins/internal"}, thirdParty: join(sdkDeps, []string{"github.com/ebitengine/purego"})},
	{name: "openai plugin imports only sdk, abi and the plugins' core", prefix: "plugins/openai",
		ours: []string{"sdk", "abi", "plugins/internal"}, thirdParty: sdkDeps},
	// The HTTP client and the canned server its tests and benchmarks run
	// (imported by cmd's tests) are the standard library alone.
	{name: "openai's client is stdlib only", prefix: "plugins/openai/wire", ours: []string{}, thirdParty: []string{}},
	{name: "openai's canned server is stdlib only", prefix: "plugins/openai/openaitest", ours: []string{}, thirdParty: []string{}},
	// acceltest, the core's conformance kit for accelerator plugins, is
	// a test kit like sdktest.
	{name: "the plugins' core imports only sdk and abi", prefix: "plugins/internal", ours: []string{"sdk", "abi"},
		thirdParty: join(sdkDeps, testKit, []string{"github.com/ebitengine/purego"})},
	{name: "examples import only sdk and abi", prefix: "examples", ours: []string{"sdk", "abi"}, thirdParty: sdkDeps},
	// The benchmarks' shared parts (npy aside: package dataset's): pickle,
	// WAV, ROUGE, Punkt, COCO evaluation, image decoding, the LLM
	// fixtures' tokenizer files, Python's semantics. They import each other and
	// Punkt's parameters, never a room.
	{name: "the shared parts import only each other", prefix: "internal/benchlib", ours: []string{},
		thirdParty: []string{"github.com/neurosnap/sentences/data"}},
	// A benchmark is one package under internal/bench (docs/benchmarks.md,
	// "Adding a benchmark"): its readers, response, scorer and fixtures,
	// over the shared parts; the registry at internal/bench imports them.
	{name: "a benchmark's package imports only the shared parts, no other benchmark's", prefix: "internal/bench", rooms: true,
		ours: benchShared, thirdParty: benchThirdParty},
	{name: "the benchmarks' registry imports only their packages and what they share", prefix: "internal/bench", exact: true,
		ours: benchShared, thirdParty: benchThirdParty},
	// accuracytest, the scorers' test kit, links testify.
	{name: "accuracy imports only benchmarks", prefix: "internal/accuracy", ours: []string{"internal/benchmarks"}, thirdParty: testKit},
}

// benchShared are what the benchmarks' packages share: the data set and
// accuracy log contracts, the rounds' rules, the shared parts, and the
// SDK's tokenizer (the LLM scorers decode with the one plugins encode with).
var benchShared = []string{"internal/dataset", "internal/accuracy", "internal/benchmarks", "internal/benchlib", "sdk/tokenizer"}

// benchThirdParty are the modules the shared parts and BERT's tokenizer
// link.
var benchThirdParty = []string{"golang.org/x/text", "github.com/neurosnap/sentences/data"}

type pkg struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	Standard     bool
	TestImports  []string
	XTestImports []string
}

// listPackages lists the module's packages as the go tool builds them for
// env (e.g. GOOS=wasip1), or for this machine when env is empty.
func listPackages(t *testing.T, env ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps,Standard,TestImports,XTestImports", module+"/...")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// applies reports whether the rule governs package rel (relative to the
// module).
func (r rule) applies(rel string) bool {
	switch {
	case r.exact:
		return rel == r.prefix
	case r.rooms:
		return under(rel, r.prefix) && rel != r.prefix
	}
	return under(rel, r.prefix)
}

// allowsOurs reports whether package rel of the rule may import dep, one
// of ours (relative to the module): its own subtree (for rooms, the
// room's) and the rule's list.
func (r rule) allowsOurs(rel, dep string) bool {
	own := r.prefix
	if r.rooms {
		room, _, _ := strings.Cut(strings.TrimPrefix(rel, r.prefix+"/"), "/")
		own = r.prefix + "/" + room
	}
	return under(dep, own) || slices.ContainsFunc(r.ours, func(o string) bool { return under(dep, o) })
}

// under reports whether rel is prefix or a package below it.
func under(rel, prefix string) bool {
	return rel == prefix || strings.HasPrefix(rel, prefix+"/")
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func TestBoundaries(t *testing.T) {
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
				for _, imp := range p.Imports {
					dep, ours := strings.CutPrefix(imp, module+"/")
					if !ours {
						continue
					}
					if !r.allowsOurs(rel, dep) {
						t.Errorf("%s imports %s: %s", rel, dep, r.name)
					}
				}
				if r.thirdParty == nil {
					continue
				}
				for _, dep := range p.Deps {
					if isStd(dep) || strings.HasPrefix(dep, module) {
						continue
					}
					if !hasPrefix(dep, r.thirdParty) {
						t.Errorf("%s depends on third-party %s: %s", rel, dep, r.name)
					}
				}
			}
		})
	}
}

func TestNothingImportsCmd(t *testing.T) {
	t.Parallel()
	for _, p := range listPackages(t) {
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/cmd/") {
				t.Errorf("%s imports %s: nothing may import cmd", p.ImportPath, imp)
			}
		}
	}
}
