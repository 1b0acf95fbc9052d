package runner

import (
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// verifyLimit is the largest data set a run checks against its checksum
// before it starts: reading it whole costs a second or two per few GiB.
// Larger ones are checked by `mlperf-host dataset info`.
const verifyLimit = 8 << 30

// verifyDataset checks a data set that carries a checksum (the compact
// .mlph format) before anything runs, when it is at most verifyLimit
// bytes: a flipped byte must not become a wrong answer in the accuracy
// log.
func verifyDataset(d dataset.Dataset) error {
	v, ok := d.(dataset.Verifier)
	if !ok || v.VerifyBytes() > verifyLimit {
		return nil
	}
	return v.Verify()
}
