package abi

// The WASM contract of ABI v1. A backend is a WASI (wasip1) reactor module:
// it exports _initialize (run once by the host before anything else) and the
// functions below, and imports the host functions of module [HostModule].
// Every name carries the major version, so a v2 contract can sit beside v1.
//
// Control calls take a protobuf request (abi/backendv1) the host wrote into
// a buffer it got from [ExportAlloc], and return a status [Code]. Their
// response message, if any, is handed to the host through [ImportReply]
// before they return. Hot-path calls take packed records instead.
//
// docs/abi.md gives the full rules: buffer ownership, when views of guest
// memory go stale, and what each call may do.
const (
	// ExportABIVersion returns Major<<16 | Minor of the ABI the guest speaks.
	ExportABIVersion = "mlperf_v1_abi_version"
	// ExportAlloc returns a guest buffer of size bytes for the host to fill,
	// or 0 when the guest is out of memory.
	ExportAlloc = "mlperf_v1_alloc"
	// ExportFree releases a buffer from ExportAlloc.
	ExportFree = "mlperf_v1_free"
	// ExportInfo takes an InfoRequest and replies with an InfoResponse.
	ExportInfo = "mlperf_v1_info"
	// ExportLoad takes a LoadRequest (model bytes inline) and replies with a
	// LoadResponse.
	ExportLoad = "mlperf_v1_load"
	// ExportLoadSamples takes a LoadSamplesRequest with inline data. The
	// request buffer becomes the guest's on success: the host never frees it,
	// and the guest may keep pointing into it until the samples are
	// unloaded.
	ExportLoadSamples = "mlperf_v1_load_samples"
	// ExportUnloadSamples takes an UnloadSamplesRequest.
	ExportUnloadSamples = "mlperf_v1_unload_samples"
	// ExportWarmup takes a WarmupRequest.
	ExportWarmup = "mlperf_v1_warmup"
	// ExportIssue takes count packed IssueRecords at ptr (in a host-owned
	// buffer from ExportAlloc) and completes every one of them through
	// ImportComplete before it returns.
	ExportIssue = "mlperf_v1_issue"
	// ExportFlush forwards FlushQueries.
	ExportFlush = "mlperf_v1_flush"
	// ExportClose takes a CloseRequest; no call follows it.
	ExportClose = "mlperf_v1_close"

	// HostModule is the import module of the host functions.
	HostModule = "mlperf_host_v1"
	// ImportReply hands the host the response message of the control call
	// in progress. The host copies it before returning.
	ImportReply = "reply"
	// ImportComplete hands the host count packed WasmCompletionRecords. The
	// host copies what it keeps before returning, and returns a Code: not OK
	// when a record names an id that is not in flight.
	ImportComplete = "complete"
	// ImportFirstToken is ImportComplete for first tokens.
	ImportFirstToken = "first_token"
	// ImportLog writes one log line at a LogLevel.
	ImportLog = "log"
)

// ValueType is a WASM value type in a function signature.
type ValueType byte

// The value types the contract uses, with their WASM binary encodings.
const (
	I32 ValueType = 0x7f
	I64 ValueType = 0x7e
)

// String returns "i32" or "i64".
func (v ValueType) String() string {
	switch v {
	case I32:
		return "i32"
	case I64:
		return "i64"
	}
	return "unknown"
}

// Func is the name and signature of one function of the WASM contract.
type Func struct {
	Name    string
	Params  []ValueType
	Results []ValueType
	// Required functions must be exported (or accepted as imports); optional
	// ones may be missing, and the host falls back.
	Required bool
}

// WasmExports returns the guest exports of ABI v1, for hosts to check every
// signature at load time.
func WasmExports() []Func {
	control := []ValueType{I32, I32}
	return []Func{
		{Name: ExportABIVersion, Results: []ValueType{I32}, Required: true},
		{Name: ExportAlloc, Params: []ValueType{I32}, Results: []ValueType{I32}, Required: true},
		{Name: ExportFree, Params: []ValueType{I32}, Required: true},
		{Name: ExportInfo, Params: control, Results: []ValueType{I32}, Required: true},
		{Name: ExportLoad, Params: control, Results: []ValueType{I32}, Required: true},
		{Name: ExportLoadSamples, Params: control, Results: []ValueType{I32}, Required: true},
		{Name: ExportUnloadSamples, Params: control, Results: []ValueType{I32}, Required: true},
		{Name: ExportWarmup, Params: control, Results: []ValueType{I32}},
		{Name: ExportIssue, Params: control, Results: []ValueType{I32}, Required: true},
		{Name: ExportFlush, Results: []ValueType{I32}},
		{Name: ExportClose, Params: control, Results: []ValueType{I32}, Required: true},
	}
}

// WasmImports returns the host functions of module [HostModule].
func WasmImports() []Func {
	return []Func{
		{Name: ImportReply, Params: []ValueType{I32, I32}, Required: true},
		{Name: ImportComplete, Params: []ValueType{I32, I32}, Results: []ValueType{I32}, Required: true},
		{Name: ImportFirstToken, Params: []ValueType{I32, I32}, Results: []ValueType{I32}, Required: true},
		{Name: ImportLog, Params: []ValueType{I32, I32, I32}, Required: true},
	}
}

// LogLevel is the level of a line written through [ImportLog]. Values match
// log/slog's levels.
type LogLevel int32

// Log levels.
const (
	LogDebug LogLevel = -4
	LogInfo  LogLevel = 0
	LogWarn  LogLevel = 4
	LogError LogLevel = 8
)
