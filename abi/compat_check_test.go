package abi_test

import (
	"fmt"

	"google.golang.org/protobuf/types/descriptorpb"
)

// breakingChanges lists what cur lost or changed of old: removed or changed
// messages, fields, enum values and RPCs. Additions are allowed.
func breakingChanges(old, cur *descriptorpb.FileDescriptorSet) []string {
	var out []string
	report := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	curMsgs, curEnums, curMethods := index(cur)
	oldMsgs, oldEnums, oldMethods := index(old)
	for name, om := range oldMsgs {
		cm, ok := curMsgs[name]
		if !ok {
			report("%s: removed", name)
			continue
		}
		cf := map[string]*descriptorpb.FieldDescriptorProto{}
		for _, f := range cm.Field {
			cf[f.GetName()] = f
		}
		for _, of := range om.Field {
			fname := name + "." + of.GetName()
			f, ok := cf[of.GetName()]
			if !ok {
				report("%s: removed", fname)
				continue
			}
			if f.GetNumber() != of.GetNumber() {
				report("%s: number %d became %d", fname, of.GetNumber(), f.GetNumber())
			}
			if f.GetType() != of.GetType() {
				report("%s: type %s became %s", fname, of.GetType(), f.GetType())
			}
			if f.GetLabel() != of.GetLabel() {
				report("%s: label %s became %s", fname, of.GetLabel(), f.GetLabel())
			}
			if f.GetTypeName() != of.GetTypeName() {
				report("%s: type %s became %s", fname, of.GetTypeName(), f.GetTypeName())
			}
			if of.OneofIndex != nil && (f.OneofIndex == nil || om.OneofDecl[of.GetOneofIndex()].GetName() != cm.OneofDecl[f.GetOneofIndex()].GetName()) {
				report("%s: left its oneof", fname)
			}
		}
	}
	for name, oe := range oldEnums {
		ce, ok := curEnums[name]
		if !ok {
			report("%s: removed", name)
			continue
		}
		cv := map[string]int32{}
		for _, v := range ce.Value {
			cv[v.GetName()] = v.GetNumber()
		}
		for _, v := range oe.Value {
			if n, ok := cv[v.GetName()]; !ok || n != v.GetNumber() {
				report("%s.%s: removed or renumbered", name, v.GetName())
			}
		}
	}
	for name, om := range oldMethods {
		cm, ok := curMethods[name]
		if !ok {
			report("%s: removed", name)
			continue
		}
		if cm.GetInputType() != om.GetInputType() || cm.GetOutputType() != om.GetOutputType() {
			report("%s: request or response type changed", name)
		}
		if cm.GetClientStreaming() != om.GetClientStreaming() {
			report("%s: client streaming %t became %t", name, om.GetClientStreaming(), cm.GetClientStreaming())
		}
		if cm.GetServerStreaming() != om.GetServerStreaming() {
			report("%s: server streaming %t became %t", name, om.GetServerStreaming(), cm.GetServerStreaming())
		}
	}
	return out
}

// index maps fully qualified names to messages (nested ones too), enums and
// RPC methods.
func index(s *descriptorpb.FileDescriptorSet) (
	map[string]*descriptorpb.DescriptorProto,
	map[string]*descriptorpb.EnumDescriptorProto,
	map[string]*descriptorpb.MethodDescriptorProto,
) {
	msgs := map[string]*descriptorpb.DescriptorProto{}
	enums := map[string]*descriptorpb.EnumDescriptorProto{}
	methods := map[string]*descriptorpb.MethodDescriptorProto{}
	var walk func(prefix string, ms []*descriptorpb.DescriptorProto, es []*descriptorpb.EnumDescriptorProto)
	walk = func(prefix string, ms []*descriptorpb.DescriptorProto, es []*descriptorpb.EnumDescriptorProto) {
		for _, e := range es {
			enums[prefix+e.GetName()] = e
		}
		for _, m := range ms {
			name := prefix + m.GetName()
			msgs[name] = m
			walk(name+".", m.NestedType, m.EnumType)
		}
	}
	for _, f := range s.File {
		prefix := f.GetPackage() + "."
		walk(prefix, f.MessageType, f.EnumType)
		for _, svc := range f.Service {
			for _, m := range svc.Method {
				methods[prefix+svc.GetName()+"."+m.GetName()] = m
			}
		}
	}
	return msgs, enums, methods
}
