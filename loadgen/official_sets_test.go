package loadgen

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// officialGeneration is one file of testdata/official: the settings, then
// what the official C++ LoadGen 6.0.17 generated for them (each file's
// header says how it was printed).
type officialGeneration struct {
	scenario    Scenario
	total, perf uint64
	seeds       [3]uint64
	conf        []string
	perfSets    []officialSet
	accSets     []officialSet
	// passes holds the generated queries: one pass over the first
	// performance set, or one per accuracy set in accuracy mode.
	passes [][]officialQuery
}

type officialSet struct {
	end     int
	samples []uint64
}

type officialQuery struct {
	scheduled int64
	samples   []uint64
}

func parseUints(t *testing.T, fields []string) []uint64 {
	t.Helper()
	v := make([]uint64, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.ParseUint(f, 10, 64)
		require.NoError(t, err)
		v = append(v, n)
	}
	return v
}

func readOfficialGeneration(t *testing.T, path string) officialGeneration {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var g officialGeneration
	var sets *[]officialSet
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		line := sc.Text()
		key, rest, _ := strings.Cut(line, " ")
		switch {
		case strings.HasPrefix(line, "#"):
		case key == "scenario":
			var err error
			g.scenario, err = ParseScenario(rest)
			require.NoError(t, err)
		case key == "total":
			g.total = parseUints(t, []string{rest})[0]
		case key == "perf":
			g.perf = parseUints(t, []string{rest})[0]
		case key == "seeds":
			copy(g.seeds[:], parseUints(t, strings.Fields(rest)))
		case key == "conf":
			g.conf = append(g.conf, rest)
		case key == "performance_sets":
			sets = &g.perfSets
		case key == "accuracy_sets":
			sets = &g.accSets
		case key == "set":
			end, samples, ok := strings.Cut(rest, ":")
			require.True(t, ok, line)
			*sets = append(*sets, officialSet{end: int(parseUints(t, []string{end})[0]), samples: parseUints(t, strings.Fields(samples))})
		case key == "queries":
			g.passes = append(g.passes, nil)
		default:
			v := parseUints(t, strings.Fields(line))
			require.NotEmpty(t, g.passes, line)
			k := len(g.passes) - 1
			g.passes[k] = append(g.passes[k], officialQuery{scheduled: int64(v[0]), samples: v[1:]})
		}
	}
	require.NoError(t, sc.Err())
	return g
}

// settings rebuilds the file's settings: the defaults with min_duration 0,
// its conf lines applied as the official driver applied them (the audit
// kind reads only the given file), and its seeds.
func (g *officialGeneration) settings(t *testing.T) TestSettings {
	t.Helper()
	s := DefaultTestSettings()
	s.Scenario = g.scenario
	s.MinDuration = 0
	c := mustParse(t, strings.Join(g.conf, "\n")+"\n", "conf")
	s, err := c.Apply(s, "m", g.scenario, AuditConf)
	require.NoError(t, err)
	s.QSLRNGSeed, s.SampleIndexRNGSeed, s.ScheduleRNGSeed = g.seeds[0], g.seeds[1], g.seeds[2]
	return s
}

func checkSets(t *testing.T, what string, want []officialSet, got []loadableSet) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		assert.Equal(t, want[i].end, got[i].end, "%s %d: end", what, i)
		assert.Equal(t, want[i].samples, got[i].samples, "%s %d: samples", what, i)
	}
}

func checkPass(t *testing.T, pass int, sc Scenario, want []officialQuery, q querySchedule) {
	t.Helper()
	require.Equal(t, len(want), q.queries, "pass %d: query count", pass)
	for k, w := range want {
		lo, hi := q.span(k)
		if !assert.Equal(t, w.samples, q.samples[lo:hi], "pass %d query %d: samples", pass, k) {
			return
		}
		if sc == Server && !assert.Equal(t, w.scheduled, q.scheduled[k], "pass %d query %d: scheduled ns", pass, k) {
			return
		}
	}
}

// TestOfficialGeneration checks the loadable sets and every generated
// query (QSL indices and, for Server, the scheduled offset to the
// nanosecond) against testdata/official, printed by the official C++
// LoadGen 6.0.17: performance runs load a permutation of the QSL's first
// performance_sample_count samples, accuracy runs cover the first
// accuracy_sample_count samples. The files cover the v5.1, v6.0 and v6.1
// official seeds and others.
func TestOfficialGeneration(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "official", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			t.Parallel()
			g := readOfficialGeneration(t, path)
			s := g.settings(t)
			require.NoError(t, s.Validate())
			e, errs := newEffective(s, g.perf, g.total)
			require.Empty(t, errs)
			perfSets := generateLoadableSets(g.total, e.performanceSampleCount, &e, nil)
			accSets := generateLoadableSets(g.total, e.accuracySampleCount, &e, nil)
			checkSets(t, "performance set", g.perfSets, perfSets)
			checkSets(t, "accuracy set", g.accSets, accSets)
			if s.Mode == AccuracyOnly {
				require.Len(t, g.passes, len(accSets))
				for i, set := range accSets {
					checkPass(t, i, s.Scenario, g.passes[i], generateQueries(&e, AccuracyOnly, set, nil))
				}
				return
			}
			require.Len(t, g.passes, 1)
			checkPass(t, 0, s.Scenario, g.passes[0], generateQueries(&e, PerformanceOnly, perfSets[0], nil))
		})
	}
}
