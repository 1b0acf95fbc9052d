package accel

import (
	"slices"
	"strings"
)

// Distinct appends s to list unless it is empty or listed already: the
// submission facts name each kind of device, type or link once.
func Distinct(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// SubmissionType spells a data type (abi.DType's and TensorRT's names:
// "float32", "int8") as measurements.json does ("fp32", "int8").
func SubmissionType(dtype string) string {
	switch dtype {
	case "float32":
		return "fp32"
	case "float16":
		return "fp16"
	case "bfloat16":
		return "bf16"
	case "float64":
		return "fp64"
	}
	return dtype
}

// JoinFacts joins the distinct values of a fact, one per kind of device.
func JoinFacts(values []string) string { return strings.Join(values, ", ") }
