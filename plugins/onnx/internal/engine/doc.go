// Package engine is the contract between the onnx plugin's backend and the
// inference engines behind it: the pure-Go executor (goengine) and the ONNX
// Runtime binding (ort). A backend picks an [Engine], loads a model into a
// [Session] once, then calls [Session.Run] per query.
//
// The package holds only types and small helpers, so that every engine and
// the backend can import it without importing each other. It builds for
// GOOS=wasip1.
//
// Package engine imports only the standard library; it must never import
// sdk, abi, host, loadgen, cmd or any engine.
package engine
