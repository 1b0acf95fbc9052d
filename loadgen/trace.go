package loadgen

import (
	"strconv"
)

// writeTrace appends the phase's samples to the Chrome trace, built from
// the phase's arrays after the fact so that tracing costs nothing while
// queries are in flight: one async "Sample" event per sample from its
// scheduled time to its completion, with the official arguments, and the
// Server "Latency" counters.
func (p *phase) writeTrace(st issueStats) {
	origin := p.r.traceOrigin
	startUs := float64(p.start.Sub(origin).Nanoseconds()) / 1e3
	us := func(b []byte, ns int64) []byte {
		return strconv.AppendFloat(b, startUs+float64(ns)/1e3, 'f', 3, 64)
	}
	pid := int64(p.r.logs.pid)
	var b []byte
	for i := range st.samplesIssued {
		if p.state[i].Load()&stateDone == 0 {
			continue
		}
		k := p.q.queryOf(i)
		seq := p.base + uint64(i)
		sched, issued, done := p.schedAt[k], p.issuedAt[k], p.doneAt[i]
		if p.eff.scenario == Server {
			b = append(b, `{"name":"Latency","ph": "C","pid":`...)
			b = strconv.AppendInt(b, pid, 10)
			b = append(b, `,"ts":`...)
			b = us(b, sched)
			b = append(b, `,"args":{ "issue_delay":`...)
			b = strconv.AppendInt(b, issued-sched, 10)
			b = append(b, `,"issue_to_done":`...)
			b = strconv.AppendInt(b, done-issued, 10)
			b = append(b, "}},\n"...)
		}
		b = append(b, `{"name":"Sample","cat":"default","ph":"b","pid":`...)
		b = strconv.AppendInt(b, pid, 10)
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, seq, 10)
		b = append(b, `,"ts":`...)
		b = us(b, sched)
		b = append(b, `,"args":{"sample_seq":`...)
		b = strconv.AppendUint(b, seq, 10)
		b = append(b, `,"query_seq":`...)
		b = strconv.AppendUint(b, p.queryBase+uint64(k), 10)
		b = append(b, `,"sample_idx":`...)
		b = strconv.AppendUint(b, p.samples[i].Index, 10)
		b = append(b, `,"issue_start_ns":`...)
		b = strconv.AppendInt(b, issued-sched, 10)
		b = append(b, `,"complete_ns":`...)
		b = strconv.AppendInt(b, done-sched, 10)
		b = append(b, "}},\n"...)
		b = append(b, `{"name":"Sample","cat":"default","ph":"e", "pid":`...)
		b = strconv.AppendInt(b, pid, 10)
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, seq, 10)
		b = append(b, `,"ts":`...)
		b = us(b, done)
		b = append(b, "},\n"...)
		if len(b) > 1<<16 {
			p.r.logs.traceWrite(b)
			b = b[:0]
		}
	}
	p.r.logs.traceWrite(b)
}
