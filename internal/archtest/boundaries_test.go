package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
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
}

var rules = []rule{
	{name: "loadgen is stdlib only", prefix: "loadgen", ours: []string{}, thirdParty: []string{}},
	{name: "abi imports nothing of ours", prefix: "abi", ours: []string{}, thirdParty: []string{
		"google.golang.org/protobuf", "google.golang.org/grpc", "google.golang.org/genproto",
		"golang.org/x/",
	}},
	{name: "sdk imports only abi", prefix: "sdk", ours: []string{"abi"}, thirdParty: []string{
		"google.golang.org/protobuf", "google.golang.org/grpc", "google.golang.org/genproto",
		"golang.org/x/", "github.com/hashicorp/", "github.com/fatih/color", "github.com/mattn/",
		"github.com/oklog/run", "github.com/stretchr/testify", "github.com/davecgh/go-spew",
		"github.com/pmezard/go-difflib", "gopkg.in/yaml.v3", "go.yaml.in/yaml/",
		// go-plugin still pulls the deprecated APIv1 protobuf shim.
		"github.com/golang/protobuf",
	}},
	{name: "host imports only abi", prefix: "host", ours: []string{"abi"}},
	{name: "onnx plugin imports only sdk, abi and the plugins' core", prefix: "plugins/onnx",
		ours: []string{"sdk", "abi", "plugins/internal"}},
	{name: "tensorrt plugin imports only sdk, abi and the plugins' core", prefix: "plugins/tensorrt",
		ours: []string{"sdk", "abi", "plugins/internal"}},
	{name: "qaic plugin imports only sdk, abi and the plugins' core", prefix: "plugins/qaic",
		ours: []string{"sdk", "abi", "plugins/internal"}},
	{name: "the plugins' core imports only sdk and abi", prefix: "plugins/internal", ours: []string{"sdk", "abi"}},
	{name: "examples import only sdk and abi", prefix: "examples", ours: []string{"sdk", "abi"}},
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps,Standard", module+"/...")
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
				if !ok || !under(rel, r.prefix) {
					continue
				}
				for _, imp := range p.Imports {
					dep, ours := strings.CutPrefix(imp, module+"/")
					if !ours {
						continue
					}
					allowed := under(dep, r.prefix)
					for _, o := range r.ours {
						allowed = allowed || under(dep, o)
					}
					if !allowed {
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
					allowed := false
					for _, tp := range r.thirdParty {
						allowed = allowed || strings.HasPrefix(dep, tp)
					}
					if !allowed {
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
