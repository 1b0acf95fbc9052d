package dlrmv3

import (
	"math/rand/v2"
	"path/filepath"
)

// RoundRequests is the round's dlrm-v3 data set size and performance
// sample count (the submission checker's 349823).
const RoundRequests = 349823

// RoundSet is a synthetic streaming data set of a given size on which the
// zoo's dlrmv3-signature model (a candidate's prediction its id / 1024,
// its label whether its rating is 3.5 or more) meets the closed targets:
// every request is as small as the format allows a request the metrics
// can score, one history item (from the user's first slot) and two
// candidates, one positive with an id of 513 to 560 (a prediction just
// above 1/2) and one negative of 464 to 511 (just below), in an order
// drawn from Seed. Accuracy and GAUC are 1, NE a little under 1.
//
// Its users request at every inference timestamp (the last one's first
// users only, to make Requests): TotalTS/10 of them, as the reference's
// 100 timestamps have 10, hold ceil(Requests / that) users.
type RoundSet struct {
	Requests, TotalTS int
	Seed              uint64
}

// Users is the number of users s writes.
func (s RoundSet) Users() int {
	inference := s.TotalTS - s.TotalTS*9/10
	return (s.Requests + inference - 1) / inference
}

// Write writes s into dir/sampled_data.
//
// # Errors
//
// Those of the files' writes.
func (s RoundSet) Write(dir string) error {
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))
	train, n := s.TotalTS*9/10, s.Users()
	slots := make([]Slot, s.TotalTS+2)
	return WriteStreamingFunc(filepath.Join(dir, SampledDir), s.TotalTS, n, func(u int) []Slot {
		clear(slots)
		slots[0] = Slot{CandidateIDs: []int64{1 + rng.Int64N(1000)}, CandidateRatings: []float32{float32(1 + rng.IntN(5))},
			HistoryIDs: []int64{1 + rng.Int64N(1000)}, HistoryRatings: []float32{float32(1 + rng.IntN(5))}}
		for k := range s.TotalTS - train {
			if k*n+u >= s.Requests {
				break
			}
			pos, neg := 513+rng.Int64N(48), 464+rng.Int64N(48)
			posR, negR := float32(4+rng.IntN(2)), float32(1+rng.IntN(3))
			sl := Slot{CandidateIDs: []int64{pos, neg}, CandidateRatings: []float32{posR, negR}}
			if rng.IntN(2) == 0 {
				sl = Slot{CandidateIDs: []int64{neg, pos}, CandidateRatings: []float32{negR, posR}}
			}
			slots[train+2+k] = sl
		}
		return slots
	})
}
