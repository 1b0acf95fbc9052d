package host

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mlperf-host/mlperf-host/abi"
)

// Modules a guest may import functions from, besides abi.HostModule.
const (
	wasiModule  = "wasi_snapshot_preview1"
	guardModule = "mlperf_host_guard"
	guardTick   = "tick"
)

var exportVersionRE = regexp.MustCompile(`^mlperf_v([0-9]+)_abi_version$`)

// checkModule checks a compiled module against the WASM contract of ABI
// v1: it is a reactor, exports memory and every required function with
// exactly its signature, and imports nothing but WASI and the host module.
// A module built for another ABI major gets a version-mismatch error.
func checkModule(name string, cm wazero.CompiledModule, guarded bool) error {
	exports := cm.ExportedFunctions()
	if _, ok := exports[abi.ExportABIVersion]; !ok {
		for export := range exports {
			if m := exportVersionRE.FindStringSubmatch(export); m != nil {
				major, _ := strconv.Atoi(m[1])
				return versionMismatch(name, major)
			}
		}
	}
	var problems []string
	if _, ok := exports["_initialize"]; !ok {
		if _, ok := exports["_start"]; ok {
			problems = append(problems, "it is a WASI command (exports _start), not a reactor: build it with -buildmode=c-shared (Go) or -mexec-model=reactor (C)")
		} else {
			problems = append(problems, "it exports no _initialize: build a WASI reactor")
		}
	}
	if _, ok := cm.ExportedMemories()["memory"]; !ok {
		problems = append(problems, `it exports no memory named "memory"`)
	}
	for _, f := range abi.WasmExports() {
		def, ok := exports[f.Name]
		switch {
		case !ok && f.Required:
			problems = append(problems, fmt.Sprintf("it does not export %s %s", f.Name, signature(f.Params, f.Results)))
		case ok && !sameSignature(def, f):
			problems = append(problems, fmt.Sprintf("export %s has signature %s, want %s",
				f.Name, defSignature(def), signature(f.Params, f.Results)))
		}
	}
	imports := abi.WasmImports()
	for _, def := range cm.ImportedFunctions() {
		module, field, _ := def.Import()
		switch module {
		case wasiModule:
		case guardModule:
			if !guarded || field != guardTick {
				problems = append(problems, fmt.Sprintf("it imports %s.%s, reserved for the host", module, field))
			}
		case NNModule:
			if sig, ok := nnImports[field]; !ok {
				problems = append(problems, fmt.Sprintf("it imports %s.%s, which wasi-nn does not have", module, field))
			} else if !allI32(def.ParamTypes(), sig.params) || !allI32(def.ResultTypes(), sig.results) {
				problems = append(problems, fmt.Sprintf("import %s.%s has signature %s, want %d i32 parameters and an i32 result",
					module, field, defSignature(def), sig.params))
			}
		case abi.HostModule:
			i := slices.IndexFunc(imports, func(f abi.Func) bool { return f.Name == field })
			if i < 0 {
				problems = append(problems, fmt.Sprintf("it imports %s.%s, which ABI v%d.%d does not have",
					module, field, abi.Major, abi.Minor))
			} else if !sameSignature(def, imports[i]) {
				problems = append(problems, fmt.Sprintf("import %s.%s has signature %s, want %s",
					module, field, defSignature(def), signature(imports[i].Params, imports[i].Results)))
			}
		default:
			problems = append(problems, fmt.Sprintf("it imports %s.%s: a plugin may import only %s, %s and %s",
				module, field, wasiModule, abi.HostModule, NNModule))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return &PluginError{Plugin: name, Op: "open", Err: fmt.Errorf("%w: %s", ErrProtocol, strings.Join(problems, "; "))}
}

func sameSignature(def api.FunctionDefinition, f abi.Func) bool {
	return slices.Equal(valueTypes(def.ParamTypes()), f.Params) && slices.Equal(valueTypes(def.ResultTypes()), f.Results)
}

// valueTypes converts wazero's value types; both use the binary encodings.
func valueTypes(ts []api.ValueType) []abi.ValueType {
	out := make([]abi.ValueType, len(ts))
	for i, t := range ts {
		out[i] = abi.ValueType(t)
	}
	return out
}

func defSignature(def api.FunctionDefinition) string {
	return signature(valueTypes(def.ParamTypes()), valueTypes(def.ResultTypes()))
}

// signature formats "(i32, i32) -> i32".
func signature(params, results []abi.ValueType) string {
	list := func(ts []abi.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(api.ValueType(t))
		}
		return strings.Join(s, ", ")
	}
	out := "(" + list(params) + ") -> "
	if len(results) == 1 {
		return out + list(results)
	}
	return out + "(" + list(results) + ")"
}

// errNoCall is returned by control calls to an optional export the guest
// does not have.
var errNoCall = errors.New("export missing")
