package dlrmv3

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/py"
)

// Slot is one timestamp of a user's line: the candidates of a request
// and the history it adds; the zero Slot is a timestamp without one.
type Slot struct {
	CandidateIDs, HistoryIDs         []int64
	CandidateRatings, HistoryRatings []float32
}

// WriteStreaming writes a synthetic streaming data set into dir as
// streaming_synthetic_data.py does with one user file: 0.csv (user u's
// line is users[u], totalTS+2 slots: the training timestamps, a base
// one, the evaluation one and the inference timestamps), its offsets,
// and per timestamp the users requesting (at an inference timestamp ts,
// those with a request in slot ts+2; else in slot ts+1), their offsets
// and counts. Python's csv module ends lines with CRLF; so does this.
func WriteStreaming(dir string, totalTS int, users [][]Slot) error {
	return WriteStreamingFunc(dir, totalTS, len(users), func(u int) []Slot { return users[u] })
}

// WriteStreamingFunc is [WriteStreaming] of n users, user(u) being user
// u's slots: a data set too large to hold as Slots is written a user at
// a time (user may reuse the slice it returned before).
func WriteStreamingFunc(dir string, totalTS, n int, user func(u int) []Slot) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	train := totalTS * 9 / 10
	slotTS := func(s int) int { // the timestamp requesting in slot s; -1 for none
		switch {
		case s >= 1 && s <= train:
			return s - 1
		case s >= train+2 && s < totalTS+2:
			return s - 2
		}
		return -1
	}
	var lines bytes.Buffer
	offsets := make([]string, 0, n)
	perTS := make([][]int64, totalTS)
	rec := make([]string, 0, 4*(totalTS+2))
	for u := range n {
		slots := user(u)
		if len(slots) != totalTS+2 {
			return fmt.Errorf("user %d: %d slots, want %d", u, len(slots), totalTS+2)
		}
		offsets = append(offsets, strconv.Itoa(lines.Len()))
		rec = rec[:0]
		for i, s := range slots {
			rec = append(rec, joinInts(s.CandidateIDs), joinFloats(s.CandidateRatings), joinInts(s.HistoryIDs), joinFloats(s.HistoryRatings))
			if ts := slotTS(i); ts >= 0 && len(s.CandidateIDs) > 0 {
				perTS[ts] = append(perTS[ts], int64(u))
			}
		}
		if err := writeCSV(&lines, rec); err != nil {
			return err
		}
	}
	var requests, cumsum bytes.Buffer
	var tsOffsets []string
	for _, req := range perTS {
		tsOffsets = append(tsOffsets, strconv.Itoa(requests.Len()))
		if err := writeCSV(&requests, []string{joinInts(req)}); err != nil {
			return err
		}
		if err := writeCSV(&cumsum, []string{strconv.Itoa(len(req))}); err != nil {
			return err
		}
	}
	var offs, tsOffs bytes.Buffer
	if err := writeCSV(&offs, []string{strings.Join(offsets, ",")}); err != nil {
		return err
	}
	if err := writeCSV(&tsOffs, []string{strings.Join(tsOffsets, ",")}); err != nil {
		return err
	}
	for name, b := range map[string][]byte{"0.csv": lines.Bytes(), offsetFile: offs.Bytes(), requestsFile: requests.Bytes(),
		requestsOffFile: tsOffs.Bytes(), cumsumFile: cumsum.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// GenerateUsers makes n users of a totalTS-timestamp data set from seed:
// each requests at a timestamp with probability one half (at every
// inference timestamp's first one, so that each has requests), with one
// to eight candidates and two to six history items of ratings 1 to 5.
func GenerateUsers(seed uint64, n, totalTS int) [][]Slot {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	items := func(k int) ([]int64, []float32) {
		ids, ratings := make([]int64, k), make([]float32, k)
		for i := range k {
			ids[i] = rng.Int64N(1_000_000_000)
			ratings[i] = float32(1 + rng.IntN(5))
		}
		return ids, ratings
	}
	users := make([][]Slot, n)
	for u := range users {
		users[u] = make([]Slot, totalTS+2)
		for s := range users[u] {
			if u > 0 && rng.IntN(2) == 0 {
				continue
			}
			var sl Slot
			sl.CandidateIDs, sl.CandidateRatings = items(1 + rng.IntN(8))
			sl.HistoryIDs, sl.HistoryRatings = items(2 + rng.IntN(5))
			users[u][s] = sl
		}
	}
	return users
}

func writeCSV(b *bytes.Buffer, rec []string) error {
	w := csv.NewWriter(b)
	w.UseCRLF = true
	if err := w.Write(rec); err != nil {
		return err
	}
	w.Flush()
	return w.Error()
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

// joinFloats writes ratings as Python's str(float) does ("5.0").
func joinFloats(v []float32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = py.Float(float64(x))
	}
	return strings.Join(s, ",")
}
