package abi

import "strconv"

// Code is a status code. Across the ABI, errors are data: a Code plus a
// message. The numbering follows gRPC's codes where they overlap, so a
// reader who knows one knows the other.
type Code uint32

// Status codes of ABI v1. New codes may be added within v1; a side that
// meets an unknown code treats it as [Internal].
const (
	OK                 Code = 0
	Canceled           Code = 1
	Unknown            Code = 2
	InvalidArgument    Code = 3
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	AlreadyExists      Code = 6
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	OutOfRange         Code = 11
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	DataLoss           Code = 15
	// VersionMismatch: the two sides share no ABI major version.
	VersionMismatch Code = 100
)

var codeNames = map[Code]string{
	OK:                 "OK",
	Canceled:           "CANCELED",
	Unknown:            "UNKNOWN",
	InvalidArgument:    "INVALID_ARGUMENT",
	DeadlineExceeded:   "DEADLINE_EXCEEDED",
	NotFound:           "NOT_FOUND",
	AlreadyExists:      "ALREADY_EXISTS",
	PermissionDenied:   "PERMISSION_DENIED",
	ResourceExhausted:  "RESOURCE_EXHAUSTED",
	FailedPrecondition: "FAILED_PRECONDITION",
	Aborted:            "ABORTED",
	OutOfRange:         "OUT_OF_RANGE",
	Unimplemented:      "UNIMPLEMENTED",
	Internal:           "INTERNAL",
	Unavailable:        "UNAVAILABLE",
	DataLoss:           "DATA_LOSS",
	VersionMismatch:    "VERSION_MISMATCH",
}

// String returns the code's name, e.g. "INVALID_ARGUMENT", or "CODE(n)" for a
// code this version does not know.
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return "CODE(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// Known reports whether c is a code of this ABI version.
func (c Code) Known() bool {
	_, ok := codeNames[c]
	return ok
}
