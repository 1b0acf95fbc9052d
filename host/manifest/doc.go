// Package manifest reads and checks plugin manifests: the plugin.json file
// that sits next to a plugin's entry file and tells mlperf-host what the
// plugin is (name, version, kind, ABI major) and how to start it.
//
// A manifest is JSON, decoded strictly: unknown fields, trailing data and
// values of the wrong type are errors that name the file, the line and
// column, and the field.
//
//	{
//	  "name": "echo",
//	  "version": "0.1.0",
//	  "kind": "wasm",
//	  "abi_major": 1,
//	  "entry": "echo.wasm",
//	  "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
//	  "memory_limit_mib": 512,
//	  "description": "null backend that echoes samples"
//	}
//
// Package manifest imports only the standard library; it must never import
// anything of mlperf-host's.
package manifest
