package qwen3vl

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/internal/accuracy"
)

var update = flag.Bool("update", false, "rewrite testdata/catalogue")

// fixtureDir holds the committed fixture: the data set in its reference
// form (two splits, the train split in two row groups), an accuracy log
// of replies of every kind, the records the verification's stand-in for
// the datasets library hands evaluation.py, and the golden messages of
// the first samples' requests.
var fixtureDir = filepath.Join("testdata", "catalogue")

const (
	fixtureTrain = 14
	fixtureTest  = 6
)

// fixtureReplies are the replies of the fixture's log, by sample: right,
// half right, misspelt, refused by the schema, in every form a reply
// takes.
func fixtureReplies(ps []Product) [][]byte {
	out := make([][]byte, len(ps))
	for i, p := range ps {
		lv := strings.Split(p.Category, categorySeparator)
		var r string
		switch i % 10 {
		case 0:
			r = fmt.Sprintf(`{"category": %q, "brand": %q, "is_secondhand": %t}`, p.Category, p.Brand, p.Secondhand)
		case 1:
			r = fmt.Sprintf(`{"category": %q, "brand": %q, "is_secondhand": "yes"}`, lv[0]+" > Other", strings.ToUpper(p.Brand)+" ")
		case 2:
			r = fmt.Sprintf(`{"category": %q, "brand": "Acne", "is_secondhand": 0}`, p.Categories[0])
		case 3:
			r = "```json\n" + fmt.Sprintf(`{"category": %q, "brand": "x", "is_secondhand": false}`, p.Category) + "\n```"
		case 4:
			r = `{"category": "Toys & Games", "brand": "acme", "is_secondhand": true, "price": 3}`
		case 5:
			r = fmt.Sprintf(` {"category": " %s ", "brand": "Giorgio  Armani", "is_secondhand": "F"} `, strings.Join(lv, " >  "))
		case 6:
			r = "I cannot tell."
		case 7:
			r = fmt.Sprintf(`{"category": %q, "category": %q, "brand": %q, "is_secondhand": 1.0}`, "none", p.Category, p.Brand)
		case 8:
			r = `{"category": "Home & Garden > Décor", "brand": "O'Neil", "is_secondhand": null}`
		case 9:
			r = fmt.Sprintf(`{"category": %q, "brand": "north face", "is_secondhand": true}`, p.Category+" > Extra")
		}
		out[i] = []byte(r)
	}
	return out
}

// writeFixture writes the fixture into dir.
func writeFixture(dir string) error {
	all := FixtureProducts(fixtureTrain+fixtureTest, 7)
	if err := WriteCatalogue(dir, "train", all[:fixtureTrain], 8); err != nil {
		return err
	}
	if err := WriteCatalogue(dir, "test", all[fixtureTrain:], 0); err != nil {
		return err
	}
	// The log lists the samples out of order, as LoadGen completes them.
	replies := fixtureReplies(all)
	var entries []accuracy.Entry
	for k := range all {
		i := (k * 7) % len(all)
		entries = append(entries, accuracy.Entry{SeqID: uint64(k), QSLIdx: uint64(i), Data: replies[i]})
	}
	var log bytes.Buffer
	if err := accuracy.WriteLog(&log, entries); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "mlperf_log_accuracy.json"), log.Bytes(), 0o644); err != nil {
		return err
	}
	if err := WriteRecords(filepath.Join(dir, "records.json"), all); err != nil {
		return err
	}
	// The golden requests: the first samples' messages, one JSON array a
	// line, which verify-accuracy compares with the reference's.
	var msgs []byte
	for _, p := range all[:3] {
		msgs = append(append(msgs, Messages(p)...), '\n')
	}
	return os.WriteFile(filepath.Join(dir, "messages.json"), msgs, 0o644)
}

// TestFixture: the committed fixture is what writeFixture writes (go
// test -update rewrites it).
func TestFixture(t *testing.T) {
	t.Parallel()
	if *update {
		require.NoError(t, os.RemoveAll(fixtureDir))
		require.NoError(t, writeFixture(fixtureDir))
	}
	dir := t.TempDir()
	require.NoError(t, writeFixture(dir))
	for _, name := range []string{"data/train-00000-of-00001.parquet", "data/test-00000-of-00001.parquet", "mlperf_log_accuracy.json", "records.json", "messages.json"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(fixtureDir, name))
		require.NoError(t, err, "run go test -update")
		require.Equal(t, want, got, "%s differs: run go test -update", name)
	}
}
