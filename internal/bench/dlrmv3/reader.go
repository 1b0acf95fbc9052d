package dlrmv3

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// The synthetic streaming data set as streaming_synthetic_data.py writes
// it and datasets/synthetic_streaming.py reads it: a directory
// (sampled_data/ of the published data set, or the directory holding
// it) of
//
//   - N.csv, one line per user of file N: 4 fields per timestamp plus two
//     (candidate ids, candidate ratings, history ids, history ratings;
//     each a comma-separated list, empty where the user made no request);
//   - offset.csv, one row per user file: each user's byte offset in it;
//   - requests_per_ts.csv, one row per timestamp: the users requesting;
//   - requests_per_ts_offset.csv: each of those rows' byte offset;
//   - users_cumsum_per_ts.csv, one row per timestamp: the cumulative
//     request counts of the user files.
//
// The first nine tenths of the timestamps are training ones (90 of 100);
// a sample is one request of an inference timestamp, in timestamp order
// then request order, read as the reference's inference branch reads it.
const (
	// SampledDir is the published data set's directory of the
	// sampled-streaming-100b files.
	SampledDir      = "sampled_data"
	offsetFile      = "offset.csv"
	requestsFile    = "requests_per_ts.csv"
	requestsOffFile = "requests_per_ts_offset.csv"
	cumsumFile      = "users_cumsum_per_ts.csv"
)

// The reference's limits on a request (configs.py, main.py): at most
// 2048 candidates (max_num_candidates_inference) and a history of at most
// max_seq_len 16384 less those candidates and the one contextual feature.
const (
	MaxCandidates = 2048
	MaxHistory    = 16384 - MaxCandidates - 1
)

// The tensors of a sample.
const (
	// KeyTensor is int64 [2]: the timestamp's index among the inference
	// timestamps and the request's index in it, which the response
	// begins with (as float32).
	KeyTensor = "ts_query"
	// UserTensor is int64 [1]: the user id.
	UserTensor = "user_id"
	// HistoryIDsTensor and HistoryRatingsTensor are the user's history
	// (int64 ids, float32 ratings [history length]).
	HistoryIDsTensor     = "uih_item_ids"
	HistoryRatingsTensor = "uih_ratings"
	// CandidateIDsTensor and CandidateRatingsTensor are the candidates
	// to rank (int64 ids, float32 ratings [candidates]); a rating of 3.5
	// or more is a positive label.
	CandidateIDsTensor     = "candidate_item_ids"
	CandidateRatingsTensor = "candidate_ratings"
)

// Schema is every sample's tensors.
var Schema = dataset.Schema{
	{Name: KeyTensor, DType: dataset.Int64, Shape: []int{2}},
	{Name: UserTensor, DType: dataset.Int64, Shape: []int{1}},
	{Name: HistoryIDsTensor, DType: dataset.Int64, Shape: []int{dataset.Varies}},
	{Name: HistoryRatingsTensor, DType: dataset.Float32, Shape: []int{dataset.Varies}},
	{Name: CandidateIDsTensor, DType: dataset.Int64, Shape: []int{dataset.Varies}},
	{Name: CandidateRatingsTensor, DType: dataset.Float32, Shape: []int{dataset.Varies}},
}

// Reader opens the synthetic streaming data set.
var Reader = dataset.Reader{Is: func(path string, _ dataset.Options) bool { return streamingDir(path) != "" }, Open: open}

// streamingDir returns the directory of path holding the streaming
// files: path itself or its sampled_data/; "" when neither does.
func streamingDir(path string) string {
	for _, d := range []string{path, filepath.Join(path, SampledDir)} {
		if dataset.IsFile(filepath.Join(d, offsetFile)) && dataset.IsFile(filepath.Join(d, requestsFile)) {
			return d
		}
	}
	return ""
}

// Streaming is the data set: its samples in memory.
type Streaming struct {
	*dataset.Memory
	// TrainTS and TotalTS are its timestamp counts; the inference
	// timestamps are TrainTS..TotalTS-1.
	TrainTS, TotalTS int
	// Requests counts each inference timestamp's requests.
	Requests []int
}

// Form implements dataset.Former.
func (s *Streaming) Form() string {
	return fmt.Sprintf("DLRMv3 synthetic streaming (%d timestamps, %d for inference: %v requests)", s.TotalTS, s.TotalTS-s.TrainTS, s.Requests)
}

func open(path string, _ dataset.Options) (dataset.Dataset, error) {
	dir := streamingDir(path)
	if dir == "" {
		return nil, fmt.Errorf("%s: %w: no %s and %s", path, dataset.ErrNotFound, offsetFile, requestsFile)
	}
	return OpenStreaming(dir)
}

// OpenStreaming reads the streaming files of dir.
//
// # Errors
//
// Names the file, and the row, user or request, of a missing file, a
// row that is not a list of numbers, counts that disagree between the
// files, an offset off its file or off a line's start, or a user line
// without the fields or the candidates of a request.
func OpenStreaming(dir string) (*Streaming, error) {
	offsets, err := readRows(filepath.Join(dir, offsetFile))
	if err != nil {
		return nil, err
	}
	tsOffsets, err := readRows(filepath.Join(dir, requestsOffFile))
	if err != nil {
		return nil, err
	}
	if len(tsOffsets) != 1 || len(offsets) == 0 {
		return nil, fmt.Errorf("%s: %w: %d rows of offsets, want one; %s: %d rows, want one per user file", requestsOffFile, dataset.ErrCorrupt, len(tsOffsets), offsetFile, len(offsets))
	}
	cumsums, err := readRows(filepath.Join(dir, cumsumFile))
	if err != nil {
		return nil, err
	}
	total := len(tsOffsets[0])
	if len(cumsums) != total {
		return nil, fmt.Errorf("%s: %w: %d rows, %s gives %d timestamps", cumsumFile, dataset.ErrCorrupt, len(cumsums), requestsOffFile, total)
	}
	s := &Streaming{TotalTS: total, TrainTS: total * 9 / 10}
	if s.TrainTS == total {
		return nil, fmt.Errorf("%s: %w: %d timestamps leave none for inference", requestsOffFile, dataset.ErrCorrupt, total)
	}
	users := newUserFiles(dir, offsets)
	requests, err := os.ReadFile(filepath.Join(dir, requestsFile))
	if err != nil {
		return nil, err
	}
	var samples []dataset.MemorySample
	for ts := s.TrainTS; ts < total; ts++ {
		reqs, err := rowAt(requests, requestsFile, tsOffsets[0][ts])
		if err != nil {
			return nil, fmt.Errorf("timestamp %d: %w", ts, err)
		}
		cum := cumsums[ts]
		if len(cum) != len(offsets) || cum[len(cum)-1] != int64(len(reqs)) {
			return nil, fmt.Errorf("%s: %w: row %d: %v for %d user files and %d requests", cumsumFile, dataset.ErrCorrupt, ts, cum, len(offsets), len(reqs))
		}
		s.Requests = append(s.Requests, len(reqs))
		for q, user := range reqs {
			file := 0
			for cum[file] <= int64(q) {
				file++
			}
			r, err := users.request(file, user, ts, s.TrainTS)
			if err != nil {
				return nil, fmt.Errorf("timestamp %d request %d: %w", ts, q, err)
			}
			samples = append(samples, r.sample(int64(ts-s.TrainTS), int64(q), user))
		}
	}
	m, err := dataset.NewTensorMemory(dir, Schema, samples, nil)
	if err != nil {
		return nil, err
	}
	s.Memory = m
	return s, nil
}

// userFiles reads the users' lines, a file at a time.
type userFiles struct {
	dir     string
	offsets [][]int64
	data    map[int][]byte
}

func newUserFiles(dir string, offsets [][]int64) *userFiles {
	return &userFiles{dir: dir, offsets: offsets, data: map[int][]byte{}}
}

// request is a user's request at one timestamp.
type request struct {
	historyIDs, candidateIDs         []int64
	historyRatings, candidateRatings []float32
}

// request reads user's request of timestamp ts from user file file, as
// the reference's inference branch does: the history of the training
// timestamps, the base one and the inference timestamps before ts, and
// the candidates of ts.
func (u *userFiles) request(file int, user int64, ts, train int) (request, error) {
	name := strconv.Itoa(file) + ".csv"
	data, ok := u.data[file]
	if !ok {
		var err error
		if data, err = os.ReadFile(filepath.Join(u.dir, name)); err != nil {
			return request{}, err
		}
		u.data[file] = data
	}
	per := len(u.offsets[0])
	if len(u.offsets[file]) != per {
		return request{}, fmt.Errorf("%s: %w: row %d: %d users, row 0 has %d", offsetFile, dataset.ErrCorrupt, file, len(u.offsets[file]), per)
	}
	if user < 0 {
		return request{}, fmt.Errorf("%s: %w: user %d", requestsFile, dataset.ErrCorrupt, user)
	}
	off := u.offsets[file][user%int64(per)]
	fields, err := fieldsAt(data, name, off)
	if err != nil {
		return request{}, fmt.Errorf("user %d: %w", user, err)
	}
	if len(fields)%4 != 0 || len(fields)/4-2 <= ts {
		return request{}, fmt.Errorf("%s: %w: user %d: %d fields, want 4 per timestamp and 8 more", name, dataset.ErrCorrupt, user, len(fields))
	}
	var r request
	add := func(i int) error {
		if fields[4*i] == "" {
			return nil
		}
		ids, err := parseInts(fields[4*i+2])
		if err != nil {
			return err
		}
		ratings, err := parseFloats(fields[4*i+3])
		if err != nil {
			return err
		}
		r.historyIDs = append(r.historyIDs, ids...)
		r.historyRatings = append(r.historyRatings, ratings...)
		return nil
	}
	for i := 0; i <= train; i++ {
		if err := add(i); err != nil {
			return request{}, fmt.Errorf("%s: user %d timestamp %d history: %w", name, user, i, err)
		}
	}
	for i := train + 2; i < ts+2; i++ {
		if err := add(i); err != nil {
			return request{}, fmt.Errorf("%s: user %d timestamp %d history: %w", name, user, i, err)
		}
	}
	c := 4 * (ts + 2)
	if fields[c] == "" || fields[c+1] == "" {
		return request{}, fmt.Errorf("%s: %w: user %d requests at timestamp %d but has no candidates there", name, dataset.ErrCorrupt, user, ts)
	}
	if r.candidateIDs, err = parseInts(fields[c]); err == nil {
		r.candidateRatings, err = parseFloats(fields[c+1])
	}
	if err != nil {
		return request{}, fmt.Errorf("%s: user %d timestamp %d candidates: %w", name, user, ts, err)
	}
	if len(r.historyIDs) != len(r.historyRatings) || len(r.candidateIDs) != len(r.candidateRatings) {
		return request{}, fmt.Errorf("%s: %w: user %d timestamp %d: %d history ids, %d ratings; %d candidate ids, %d ratings", name, dataset.ErrCorrupt,
			user, ts, len(r.historyIDs), len(r.historyRatings), len(r.candidateIDs), len(r.candidateRatings))
	}
	r.historyIDs, r.historyRatings = r.historyIDs[:min(len(r.historyIDs), MaxHistory)], r.historyRatings[:min(len(r.historyRatings), MaxHistory)]
	r.candidateIDs, r.candidateRatings = r.candidateIDs[:min(len(r.candidateIDs), MaxCandidates)], r.candidateRatings[:min(len(r.candidateRatings), MaxCandidates)]
	return r, nil
}

// sample lays r out in Schema's order.
func (r request) sample(ts, q, user int64) dataset.MemorySample {
	var b bytes.Buffer
	le := binary.LittleEndian
	for _, v := range append([]int64{ts, q, user}, r.historyIDs...) {
		b.Write(le.AppendUint64(nil, uint64(v)))
	}
	b.Write(dataset.Float32Bytes(r.historyRatings))
	for _, v := range r.candidateIDs {
		b.Write(le.AppendUint64(nil, uint64(v)))
	}
	b.Write(dataset.Float32Bytes(r.candidateRatings))
	h, c := len(r.historyIDs), len(r.candidateIDs)
	return dataset.MemorySample{Shapes: [][]int{{2}, {1}, {h}, {h}, {c}, {c}}, Data: b.Bytes()}
}

// readRows reads a CSV file whose rows are one list of integers each.
func readRows(path string) ([][]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	var rows [][]int64
	for n := 0; ; n++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", name, dataset.ErrCorrupt, err)
		}
		if len(rec) != 1 {
			return nil, fmt.Errorf("%s: %w: row %d: %d fields, want one list", name, dataset.ErrCorrupt, n, len(rec))
		}
		v, err := parseInts(rec[0])
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", name, n, err)
		}
		rows = append(rows, v)
	}
}

// fieldsAt parses the CSV line starting at byte off of data.
func fieldsAt(data []byte, name string, off int64) ([]string, error) {
	if off < 0 || off >= int64(len(data)) || off > 0 && data[off-1] != '\n' {
		return nil, fmt.Errorf("%s: %w: offset %d is not a line's start (%d bytes)", name, dataset.ErrCorrupt, off, len(data))
	}
	line := data[off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i+1]
	}
	r := csv.NewReader(bytes.NewReader(line))
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: line at offset %d: %w", name, dataset.ErrCorrupt, off, err)
	}
	return rec, nil
}

// rowAt parses the one-list row starting at byte off of data.
func rowAt(data []byte, name string, off int64) ([]int64, error) {
	rec, err := fieldsAt(data, name, off)
	if err != nil {
		return nil, err
	}
	if len(rec) != 1 {
		return nil, fmt.Errorf("%s: %w: row at offset %d: %d fields, want one list", name, dataset.ErrCorrupt, off, len(rec))
	}
	v, err := parseInts(rec[0])
	if err != nil {
		return nil, fmt.Errorf("%s: row at offset %d: %w", name, off, err)
	}
	return v, nil
}

// list splits a list as the reference's json_loads reads it: "1,2,3" or
// "[1, 2, 3]".
func list(s string) []string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func parseInts(s string) ([]int64, error) {
	var out []int64
	for i, f := range list(s) {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: item %d %q: not an integer", dataset.ErrCorrupt, i, truncated(f))
		}
		out = append(out, v)
	}
	return out, nil
}

func parseFloats(s string) ([]float32, error) {
	var out []float32
	for i, f := range list(s) {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) {
			return nil, fmt.Errorf("%w: item %d %q: not a number", dataset.ErrCorrupt, i, truncated(f))
		}
		out = append(out, float32(v))
	}
	return out, nil
}

func truncated(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}
