package loadgen

import (
	"context"
)

// QuerySample is one sample of a query: the id the SUT completes it with
// and the index of its data in the QSL.
type QuerySample struct {
	// ID identifies the sample within the run; pass it back in
	// [QuerySampleResponse.ID].
	ID uint64
	// Index is the sample's index in the QSL.
	Index uint64
}

// QuerySampleResponse is the SUT's answer for one sample.
type QuerySampleResponse struct {
	// ID is the [QuerySample.ID] being completed.
	ID uint64
	// Data is the response. The LoadGen copies it when the response is
	// logged ([Responder.ResponseLogged]) before QuerySamplesComplete
	// returns, and never keeps it otherwise.
	Data []byte
	// NTokens is the number of output tokens, for token-latency runs.
	NTokens int64
	// Err, when not nil, reports that the SUT failed this sample (an
	// extension of the official API, which has no way to say so). The
	// sample counts as completed, so the run can end, but the failure is
	// logged as a runtime error in the detail log and makes the run
	// INVALID. In accuracy mode the sample is logged with Data as given
	// (usually empty), which the accuracy checker scores as wrong.
	Err error
}

// SUT is the system under test.
//
// IssueQuery hands the SUT one query. It should return quickly: it is on
// the issuing path, and in the Server scenario every microsecond it takes
// delays the next query. The SUT completes each sample exactly once through
// r, from any goroutine, before or after IssueQuery returns. The samples
// slice belongs to the LoadGen and stays valid and unchanged until the run
// ends; the SUT must not modify it. An error from IssueQuery ends the run,
// which is then invalid.
//
// FlushQueries tells the SUT that no query follows for now (the official
// FlushQueries); a batching SUT should issue what it holds back.
type SUT interface {
	Name() string
	IssueQuery(ctx context.Context, samples []QuerySample, r *Responder) error
	FlushQueries(ctx context.Context) error
}

// QSL is the query sample library: the data set the queries refer to.
//
// The LoadGen asks it to load a set of samples before a timed run and to
// unload them afterwards; both are untimed. TotalSampleCount is the size of
// the data set, PerformanceSampleCount how many samples fit in memory at
// once (the size of a loadable set, unless
// TestSettings.PerformanceSampleCountOverride is set).
type QSL interface {
	Name() string
	TotalSampleCount() uint64
	PerformanceSampleCount() uint64
	LoadSamplesToRAM(ctx context.Context, indices []uint64) error
	UnloadSamplesFromRAM(ctx context.Context, indices []uint64) error
}

// GroupedQSL is a QSL whose samples come in groups issued together, one
// sample per query at a constant rate (use_grouped_qsl, the official
// NumberOfGroups, GroupSize and GroupOf). Groups are numbered from 0 and
// hold consecutive sample indices: group g starts after the samples of
// groups 0..g-1.
type GroupedQSL interface {
	QSL
	NumberOfGroups() uint64
	GroupSize(group uint64) uint64
	GroupOf(index uint64) uint64
}
