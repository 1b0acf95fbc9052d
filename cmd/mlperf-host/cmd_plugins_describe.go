package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mlperf-host/mlperf-host/abi"
	"github.com/mlperf-host/mlperf-host/host"
	"github.com/mlperf-host/mlperf-host/internal/exitcode"
)

func (a *app) pluginsDescribe(ctx context.Context, args []string) error {
	fs := a.newFlagSet("plugins describe", "[flags] NAME",
		"Open a plugin and print what it says of itself: version, ABI, capabilities, limits, devices and\nthe options its Load accepts.")
	var cf configFlags
	cf.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return exitcode.New(exitcode.Usage, errors.New("plugins describe: want one plugin NAME"), "`mlperf-host plugins list` shows the names")
	}
	cf.vals = append(cf.vals, configFlagValue("plugin", pos[0]))
	c, err := a.load(&cf)
	if err != nil {
		return err
	}
	b, err := a.plugins().Open(ctx, c)
	if err != nil {
		return err
	}
	describePlugin(a.stdout, b.Info())
	if err := b.Close(); err != nil && !errors.Is(err, host.ErrClosed) {
		return err
	}
	return nil
}

// describePlugin prints a plugin's Info.
func describePlugin(w io.Writer, i host.Info) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "plugin\t%s %s\n", i.Name, i.Version)
	if i.Description != "" {
		fmt.Fprintf(tw, "description\t%s\n", i.Description)
	}
	fmt.Fprintf(tw, "abi\t%s\n", abi.VersionString(uint16(i.ABIMajor), uint16(i.ABIMinor)))
	fmt.Fprintf(tw, "transport\t%s (%d instance(s))\n", i.Transport, i.Instances)
	fmt.Fprintf(tw, "capabilities\t%s\n", capabilityNames(i.Capabilities))
	maxBatch := "no limit"
	if i.MaxBatch > 0 {
		maxBatch = fmt.Sprint(i.MaxBatch)
	}
	fmt.Fprintf(tw, "max batch\t%s\n", maxBatch)
	fmt.Fprintf(tw, "max in flight\t%d\n", i.MaxInFlight)
	tw.Flush()
	fmt.Fprintf(w, "\ndevices (%d)\n", len(i.Devices))
	if len(i.Devices) > 0 {
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  ID\tNAME\tKIND\tMEMORY\tDRIVER\tNUMA\tPCI\tUUID")
		for _, d := range i.Devices {
			numa := "-"
			if d.NUMANode >= 0 {
				numa = fmt.Sprint(d.NUMANode)
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.ID, d.Name, d.Kind, mib(d.MemoryBytes), dash(d.Driver), numa,
				dash(d.PCIBusID), dash(d.UUID))
		}
		tw.Flush()
	}
	if len(i.Options) == 0 {
		fmt.Fprintf(w, "\noptions: the plugin declares none (ABI v1.2 option schema); it checks its options itself\n")
		return
	}
	fmt.Fprintf(w, "\noptions (--set %s.NAME=VALUE, or %s.SCENARIO.NAME for one scenario)\n", i.Name, i.Name)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tTYPE\tDEFAULT\tDOC")
	for _, o := range i.Options {
		t, doc := string(o.Type), o.Doc
		if t == "" {
			t = string(abi.OptionString)
		}
		if o.Type == abi.OptionEnum {
			doc += " (" + strings.Join(o.Allowed, ", ") + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", o.Name, t, dash(o.Default), doc)
	}
	tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func mib(b uint64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%d MiB", b>>20)
}

// capabilityNames spells the capability bits as docs/abi.md names them.
func capabilityNames(c abi.Capability) string {
	names := []struct {
		bit  abi.Capability
		name string
	}{
		{abi.CapFlush, "FLUSH"}, {abi.CapWarmup, "WARMUP"}, {abi.CapFirstToken, "FIRST_TOKEN"}, {abi.CapModelPath, "MODEL_PATH"},
		{abi.CapSharedArena, "SHARED_ARENA"}, {abi.CapSampleLoader, "SAMPLE_LOADER"}, {abi.CapSharedRing, "SHARED_RING"}, {abi.CapMembers, "MEMBERS"},
	}
	var out []string
	for _, n := range names {
		if c.Has(n.bit) {
			out = append(out, n.name)
			c &^= n.bit
		}
	}
	if c != 0 {
		out = append(out, fmt.Sprintf("%#x", uint64(c)))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}
