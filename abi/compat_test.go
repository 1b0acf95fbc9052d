package abi_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/abi/backendv1"
	"github.com/mlperf-host/mlperf-host/abi/backendv1grpc"
)

var update = flag.Bool("update", false, "write the frozen descriptor of the current minor")

// frozenPath is the frozen descriptor set of one released minor of v1.
func frozenPath(minor int) string {
	return filepath.Join("testdata", fmt.Sprintf("backend_v%d.%d.binpb", abi.Major, minor))
}

func currentDescriptors() *descriptorpb.FileDescriptorSet {
	return &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(backendv1.File_mlperf_backend_v1_backend_proto),
		protodesc.ToFileDescriptorProto(backendv1grpc.File_mlperf_backend_v1_service_proto),
	}}
}

// TestCompatibleWithEveryReleasedMinor checks the additive-only policy:
// everything each released minor of v1 had is still there, unchanged.
func TestCompatibleWithEveryReleasedMinor(t *testing.T) {
	t.Parallel()
	cur := currentDescriptors()
	if *update {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(cur)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(frozenPath(abi.Minor), b, 0o644))
	}
	for minor := 0; minor <= abi.Minor; minor++ {
		b, err := os.ReadFile(frozenPath(minor))
		require.NoError(t, err, "every released minor has a frozen descriptor; freeze this one with -update")
		var old descriptorpb.FileDescriptorSet
		require.NoError(t, proto.Unmarshal(b, &old))
		assert.Empty(t, breakingChanges(&old, cur), "changes breaking v1.%d", minor)
	}
}

func TestBreakingChangesAreFound(t *testing.T) {
	t.Parallel()
	// Each mutation below breaks v1; the checker must name it.
	tests := []struct {
		name   string
		mutate func(*descriptorpb.FileDescriptorSet)
		want   string
	}{
		{name: "removed field", want: "mlperf.backend.v1.Status.message: removed", mutate: func(s *descriptorpb.FileDescriptorSet) {
			m := findMessage(s, "Status")
			m.Field = m.Field[:1]
		}},
		{name: "renumbered field", want: "mlperf.backend.v1.Status.code: number 1 became 9", mutate: func(s *descriptorpb.FileDescriptorSet) {
			findMessage(s, "Status").Field[0].Number = proto.Int32(9)
		}},
		{name: "retyped field", want: "mlperf.backend.v1.Status.code: type TYPE_UINT32 became TYPE_INT64", mutate: func(s *descriptorpb.FileDescriptorSet) {
			findMessage(s, "Status").Field[0].Type = descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum()
		}},
		{name: "removed message", want: "mlperf.backend.v1.Flush: removed", mutate: func(s *descriptorpb.FileDescriptorSet) {
			f := s.File[0]
			for i, m := range f.MessageType {
				if m.GetName() == "Flush" {
					f.MessageType = append(f.MessageType[:i], f.MessageType[i+1:]...)
					return
				}
			}
		}},
		{name: "removed rpc", want: "mlperf.backend.v1.Backend.Ping: removed", mutate: func(s *descriptorpb.FileDescriptorSet) {
			svc := s.File[1].Service[0]
			for i, m := range svc.Method {
				if m.GetName() == "Ping" {
					svc.Method = append(svc.Method[:i], svc.Method[i+1:]...)
					return
				}
			}
		}},
		{name: "streaming changed", want: "mlperf.backend.v1.Backend.Session: client streaming true became false", mutate: func(s *descriptorpb.FileDescriptorSet) {
			for _, m := range s.File[1].Service[0].Method {
				if m.GetName() == "Session" {
					m.ClientStreaming = proto.Bool(false)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			old := currentDescriptors()
			cur := currentDescriptors()
			tt.mutate(cur)
			assert.Contains(t, breakingChanges(old, cur), tt.want)
		})
	}
}

func TestAddingIsNotBreaking(t *testing.T) {
	t.Parallel()
	old := currentDescriptors()
	cur := currentDescriptors()
	m := findMessage(cur, "Status")
	m.Field = append(m.Field, &descriptorpb.FieldDescriptorProto{
		Name: proto.String("detail"), Number: proto.Int32(3),
		Type:  descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
		Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
	})
	cur.File[0].MessageType = append(cur.File[0].MessageType, &descriptorpb.DescriptorProto{Name: proto.String("New")})
	assert.Empty(t, breakingChanges(old, cur))
}

func findMessage(s *descriptorpb.FileDescriptorSet, name string) *descriptorpb.DescriptorProto {
	for _, f := range s.File {
		for _, m := range f.MessageType {
			if m.GetName() == name {
				return m
			}
		}
	}
	panic("no message " + name)
}
