package cost

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// Table writes r as a Markdown table: each figure for the plugin, the
// net/http loop and their ratio, and for the serial figures the floor
// and the plugin's ratio to it (– where the floor was not measured).
func (r Result) Table(w io.Writer) error {
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/1e3) }
	ratio := func(a, b float64) string {
		if b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	none := []string{"–", "–"}
	dur := func(a, b time.Duration) []string {
		return append([]string{us(a), us(b), ratio(float64(a), float64(b))}, none...)
	}
	qps := func(a, b float64) []string {
		return append([]string{fmt.Sprintf("%.0f/s", a), fmt.Sprintf("%.0f/s", b), ratio(a, b)}, none...)
	}
	p, h := r.Plugin, r.HTTP
	frames := r.Tokens + 2 // a frame a token, the usage frame, [DONE]
	fixed := func(f Figures) time.Duration { return f.Stream.cpuPer() - time.Duration(frames)*f.Frame }
	// floored is dur with the floor's figure of the same measure.
	floored := func(of func(Figures) time.Duration) []string {
		v := dur(of(p), of(h))
		if r.Floor != nil {
			v[3], v[4] = us(of(*r.Floor)), ratio(float64(of(p)), float64(of(*r.Floor)))
		}
		return v
	}
	rows := []struct {
		what string
		v    []string
	}{
		{fmt.Sprintf("CPU per streamed request (%d tokens, %d frames), one at a time", r.Tokens, frames), floored(func(f Figures) time.Duration { return f.Stream.cpuPer() })},
		{"wall per streamed request, one at a time", floored(func(f Figures) time.Duration { return f.Stream.wallPer() })},
		{"CPU per request not streamed, one at a time", floored(func(f Figures) time.Duration { return f.Whole.cpuPer() })},
		{"wall per request not streamed, one at a time", floored(func(f Figures) time.Duration { return f.Whole.wallPer() })},
		{fmt.Sprintf("CPU per SSE frame (%d-token streams less %d-token, per frame)", r.LongTokens, r.Tokens), floored(func(f Figures) time.Duration { return f.Frame })},
		{"CPU per streamed request less its frames", floored(fixed)},
		{"TTFT less the server's first-frame send, p50, one at a time", floored(func(f Figures) time.Duration { return f.SerialTTFT[0] })},
		{"TTFT less the server's first-frame send, p99, one at a time", floored(func(f Figures) time.Duration { return f.SerialTTFT[1] })},
		{fmt.Sprintf("TTFT less the server's first-frame send, p50, one at a time at Poisson arrivals of %.0f/s", r.StartRate), floored(func(f Figures) time.Duration { return f.PacedTTFT[0] })},
		{fmt.Sprintf("TTFT less the server's first-frame send, p99, one at a time at Poisson arrivals of %.0f/s", r.StartRate), floored(func(f Figures) time.Duration { return f.PacedTTFT[1] })},
		{fmt.Sprintf("Offline: rate, %d requests, %d in flight", r.Offline, r.Workers), qps(p.Offline.rate(), h.Offline.rate())},
		{"Offline: CPU per streamed request", dur(p.Offline.cpuPer(), h.Offline.cpuPer())},
		{fmt.Sprintf("Server: highest Poisson rate kept up (doubling from %.0f/s, %v steps)", r.StartRate, r.Step), qps(p.ServerRate, h.ServerRate)},
		{"Server: CPU per streamed request at that rate", dur(p.Server.cpuPer(), h.Server.cpuPer())},
		{fmt.Sprintf("TTFT less the server's first-frame send, p50 at %.0f/s", r.StartRate), dur(p.TTFT[r.StartRate][0], h.TTFT[r.StartRate][0])},
		{fmt.Sprintf("TTFT less the server's first-frame send, p99 at %.0f/s", r.StartRate), dur(p.TTFT[r.StartRate][1], h.TTFT[r.StartRate][1])},
		{fmt.Sprintf("TTFT less the server's first-frame send, p50 at %.0f/s (the highest rate both kept up with)", r.CommonRate()), dur(p.TTFT[r.CommonRate()][0], h.TTFT[r.CommonRate()][0])},
		{fmt.Sprintf("TTFT less the server's first-frame send, p99 at %.0f/s", r.CommonRate()), dur(p.TTFT[r.CommonRate()][1], h.TTFT[r.CommonRate()][1])},
	}
	var b strings.Builder
	b.WriteString("| measure | plugin | net/http loop | plugin / net/http | floor | plugin / floor |\n|---|---:|---:|---:|---:|---:|\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row.what, strings.Join(row.v, " | "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Machine describes this machine for the table's caption: the CPU, its
// cores, the load, Go.
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = ", load average " + strings.Join(f[:3], " ")
		}
	}
	return fmt.Sprintf("%s, %d cores%s, %s %s/%s", model, runtime.NumCPU(), load, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
