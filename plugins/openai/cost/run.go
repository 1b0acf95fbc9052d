package cost

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/mlperf-host/mlperf-host/plugins/openai/openaitest"
)

// Config says what to measure. The zero value of a count takes its
// default.
type Config struct {
	// URL is the canned server's, running in another process.
	URL string
	// Dir is where the canned vocabulary's tokenizer.json is written.
	Dir string
	// Tokens is a request's output length (16); LongTokens the longer
	// one whose difference gives a frame's cost (256).
	Tokens, LongTokens int
	// Serial is the requests sent one at a time per figure (2000), in
	// Rounds rounds (5) that alternate the clients; a figure is the
	// median round's.
	Serial, Rounds int
	// Offline is the requests of the Offline phase (20000), sent by
	// Workers goroutines (64; also each client's connections).
	Offline, Workers int
	// StartRate is the first Server rate (1000/s), doubled while the
	// client keeps up; each step lasts Step (1s) and holds at most
	// MaxSamples requests (65536).
	StartRate  float64
	Step       time.Duration
	MaxSamples int
	// PluginOptions are more of the plugin's options (its schema's
	// names) besides those the run sets, which they may not change:
	// timeouts, say.
	PluginOptions map[string]string
}

func (c *Config) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Tokens, 16)
	def(&c.LongTokens, 256)
	def(&c.Serial, 2000)
	def(&c.Rounds, 5)
	def(&c.Offline, 20000)
	def(&c.Workers, 64)
	def(&c.MaxSamples, 1<<16)
	if c.StartRate <= 0 {
		c.StartRate = 1000
	}
	if c.Step <= 0 {
		c.Step = time.Second
	}
}

// Figures are one client's measurements.
type Figures struct {
	// Stream and Whole are requests of Tokens tokens sent one at a
	// time, streamed and not; Long is streamed of LongTokens.
	Stream, Whole, Long spent
	// Frame is a frame's CPU: the difference of Long and Stream per
	// frame more.
	Frame time.Duration
	// Offline is the Offline phase.
	Offline spent
	// Server is the highest Poisson step the client kept up with
	// (n is 0 when it kept up with none); TTFT holds, by the rate of
	// each step kept up with, the time from the server's send of the
	// first frame to the client's first token: p50 and p99.
	Server     spent
	ServerRate float64
	TTFT       map[float64][2]time.Duration
	// SerialTTFT is the same time for the streamed requests of Tokens
	// tokens sent one at a time, over every round: p50 and p99;
	// PacedTTFT for those sent one at a time at Poisson arrivals of
	// StartRate.
	SerialTTFT, PacedTTFT [2]time.Duration
}

// CommonRate is the highest Server rate both clients kept up with; 0
// when there is none.
func (r Result) CommonRate() float64 { return min(r.Plugin.ServerRate, r.HTTP.ServerRate) }

// Result is both clients' figures, and the floor's where it was
// measured (Linux): its requests one at a time alone.
type Result struct {
	Config
	Plugin, HTTP Figures
	Floor        *Figures
}

// Run measures the plugin's client and the net/http loop against the
// canned server at cfg.URL, phase by phase, the two in turn.
func Run(ctx context.Context, cfg Config) (Result, error) {
	cfg.defaults()
	tok := filepath.Join(cfg.Dir, "tokenizer.json")
	if err := openaitest.WriteTokenizer(tok, openaitest.DefaultPieces()); err != nil {
		return Result{}, err
	}
	res := Result{Config: cfg}
	type pair struct{ stream, whole, long client }
	names := [3]string{"plugin", "net/http", "floor"}
	samples := max(cfg.Serial, cfg.Offline, cfg.MaxSamples)
	builders := [3]func(stream bool, tokens int) (client, error){
		func(stream bool, tokens int) (client, error) {
			return newPlugin(ctx, cfg.URL, tok, stream, tokens, samples, cfg.Workers, cfg.PluginOptions)
		},
		func(stream bool, tokens int) (client, error) {
			return newHTTP(cfg.URL, stream, tokens, cfg.Workers), nil
		},
	}
	if floorAvailable {
		builders[2] = func(stream bool, tokens int) (client, error) { return newFloor(cfg.URL, stream, tokens) }
		res.Floor = &Figures{}
	}
	// pairs and figs are the plugin's, the net/http loop's and the
	// floor's (nil where it is not measured).
	var pairs [3]*pair
	figs := [3]*Figures{&res.Plugin, &res.HTTP, res.Floor}
	var built []client
	defer func() {
		for _, c := range built {
			c.close()
		}
	}()
	for i, build := range builders {
		if build == nil {
			continue
		}
		p := &pair{}
		for _, shape := range []struct {
			to     *client
			stream bool
			tokens int
		}{{&p.stream, true, cfg.Tokens}, {&p.whole, false, cfg.Tokens}, {&p.long, true, cfg.LongTokens}} {
			c, err := build(shape.stream, shape.tokens)
			if err != nil {
				return res, fmt.Errorf("%s: %w", names[i], err)
			}
			built = append(built, c)
			*shape.to = c
		}
		pairs[i] = p
	}
	// each runs f for the plugin and the net/http loop, in turn; the
	// floor serves requests one at a time only.
	each := func(f func(c pair, fig *Figures) error) error {
		for i := range 2 {
			if err := f(*pairs[i], figs[i]); err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
		}
		return nil
	}
	if err := each(func(c pair, _ *Figures) error { // warm-up: connections, buffers, the heap
		_, err := offline(ctx, c.stream, cfg.Workers*8, cfg.Workers)
		return err
	}); err != nil {
		return res, err
	}
	// The serial figures in rounds, the clients in turn: each the median
	// round's, the machine's slow moments spread over every client. The
	// first tokens of the paced and of the streamed requests are matched
	// to the server's log, request by request.
	per := max(cfg.Serial/cfg.Rounds, 1)
	rounds := [3][3][]spent{}
	var firstDelays, pacedDelays [3][]time.Duration
	for round := range cfg.Rounds {
		for i, c := range pairs {
			if c == nil {
				continue
			}
			d, err := matched(ctx, cfg.URL, func() ([]int64, error) { return paced(ctx, c.stream, cfg.StartRate, per, uint64(round)) })
			if err != nil {
				return res, fmt.Errorf("%s: %w", names[i], err)
			}
			pacedDelays[i] = append(pacedDelays[i], d...)
			for k, shape := range []struct {
				c client
				n int
			}{{c.stream, per}, {c.whole, per}, {c.long, max(per/4, 1)}} {
				var s spent
				send := func() (firsts []int64, err error) {
					s, firsts, err = serial(ctx, shape.c, shape.n)
					return firsts, err
				}
				if k == 0 { // the streamed requests of Tokens tokens
					d, err = matched(ctx, cfg.URL, send)
					firstDelays[i] = append(firstDelays[i], d...)
				} else {
					_, err = send()
				}
				if err != nil {
					return res, fmt.Errorf("%s: %w", names[i], err)
				}
				rounds[i][k] = append(rounds[i][k], s)
			}
		}
	}
	for i, f := range figs {
		if f != nil {
			f.Stream, f.Whole, f.Long = median(rounds[i][0]), median(rounds[i][1]), median(rounds[i][2])
			f.Frame = (f.Long.cpuPer() - f.Stream.cpuPer()) / time.Duration(cfg.LongTokens-cfg.Tokens)
			f.SerialTTFT, f.PacedTTFT = percentiles(firstDelays[i]), percentiles(pacedDelays[i])
		}
	}
	if err := each(func(c pair, f *Figures) (err error) {
		f.Offline, err = offline(ctx, c.stream, cfg.Offline, cfg.Workers)
		return
	}); err != nil {
		return res, err
	}
	err := each(func(c pair, f *Figures) error { return serverSteps(ctx, cfg, c.stream, f) })
	return res, err
}

// serverSteps doubles the Poisson rate from cfg.StartRate while the
// client keeps up.
func serverSteps(ctx context.Context, cfg Config, c client, f *Figures) error {
	for rate, step := cfg.StartRate, 0; ; rate, step = rate*2, step+1 {
		n := int(rate * cfg.Step.Seconds())
		if n > cfg.MaxSamples {
			return nil
		}
		if _, err := openaitest.TakeLog(ctx, cfg.URL); err != nil { // clear it
			return err
		}
		p, err := server(ctx, c, rate, n, uint64(step))
		if err != nil {
			return err
		}
		if !p.keptUp() {
			return nil
		}
		d, err := takeDelays(ctx, cfg.URL, p.firsts)
		if err != nil {
			return err
		}
		if f.TTFT == nil {
			f.TTFT = map[float64][2]time.Duration{}
		}
		f.Server, f.ServerRate, f.TTFT[rate] = p.spent, rate, percentiles(d)
	}
}

// matched clears the canned server's log, runs send and returns, request
// by request, the first tokens' times it gives less the server's
// first-frame send times.
func matched(ctx context.Context, url string, send func() ([]int64, error)) ([]time.Duration, error) {
	if _, err := openaitest.TakeLog(ctx, url); err != nil {
		return nil, err
	}
	firsts, err := send()
	if err != nil {
		return nil, err
	}
	return takeDelays(ctx, url, firsts)
}

// takeDelays reads and clears the canned server's log and returns, for
// each request, the client's first-token time less the server's
// first-frame send time (matched by the prompt's last id).
func takeDelays(ctx context.Context, url string, firsts []int64) ([]time.Duration, error) {
	log, err := openaitest.TakeLog(ctx, url)
	if err != nil {
		return nil, err
	}
	return delays(log, firsts)
}

// delays is, request by request of the log, the client's first-token
// time less the server's first-frame send time; every request of firsts
// must be in the log once.
func delays(log []openaitest.LogEntry, firsts []int64) ([]time.Duration, error) {
	var d []time.Duration
	for _, e := range log {
		k, ok := e.Sample()
		if !ok {
			return nil, fmt.Errorf("the canned server's log: a body not of this run: %.80s", e.Body)
		}
		if k < 0 || k >= len(firsts) || firsts[k] == 0 || e.FirstFrame == 0 {
			return nil, fmt.Errorf("the canned server's log: request %d has no first token on one side", k)
		}
		d = append(d, time.Duration(firsts[k]-e.FirstFrame))
	}
	if len(d) != len(firsts) {
		return nil, fmt.Errorf("the canned server logged %d requests of %d", len(d), len(firsts))
	}
	return d, nil
}

// percentiles is the p50 and p99 of d (sorted in place); zero when d is
// empty.
func percentiles(d []time.Duration) [2]time.Duration {
	if len(d) == 0 {
		return [2]time.Duration{}
	}
	slices.Sort(d)
	rank := func(p float64) time.Duration { return d[max(0, int(p*float64(len(d))+0.999999)-1)] }
	return [2]time.Duration{rank(0.5), rank(0.99)}
}
