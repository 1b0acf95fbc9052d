package loadgen

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// IncompleteSuffix ends the name of a log file that could not be written
// whole (a full disk): a torn file never keeps its official name, where
// the submission checker or a script would take it for a result.
const IncompleteSuffix = ".incomplete"

// IncompleteError reports log files that could not be written whole; each
// was renamed with IncompleteSuffix (or removed, when even that failed).
type IncompleteError struct {
	// Files are the official names of the files affected.
	Files []string
	// Renamed, Removed and Left say what became of each: renamed with
	// IncompleteSuffix, removed when the rename failed, left as they are
	// when both failed.
	Renamed, Removed, Left []string
	// Err is the first write error, e.g. "no space left on device".
	Err error
}

// Error lists the files and what became of them.
func (e *IncompleteError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v; incomplete logs", e.Err)
	if len(e.Renamed) > 0 {
		fmt.Fprintf(&b, " renamed to %s: %s", IncompleteSuffix, strings.Join(e.Renamed, ", "))
	}
	if len(e.Removed) > 0 {
		fmt.Fprintf(&b, "; removed: %s", strings.Join(e.Removed, ", "))
	}
	if len(e.Left) > 0 {
		fmt.Fprintf(&b, "; could not be renamed or removed (delete them): %s", strings.Join(e.Left, ", "))
	}
	return b.String()
}

// Unwrap returns the write error.
func (e *IncompleteError) Unwrap() error { return e.Err }

// markIncomplete renames each file whose writing failed (failed[i] non-nil)
// and returns an *IncompleteError listing them, or nil when every file was
// written whole.
func markIncomplete(files []*os.File, failed []error) error {
	var ie IncompleteError
	for i, f := range files {
		if failed[i] == nil {
			continue
		}
		if ie.Err == nil {
			ie.Err = failed[i]
		}
		name := f.Name()
		ie.Files = append(ie.Files, name)
		if err := os.Rename(name, name+IncompleteSuffix); err == nil {
			ie.Renamed = append(ie.Renamed, name)
		} else if err := os.Remove(name); err == nil || errors.Is(err, os.ErrNotExist) {
			ie.Removed = append(ie.Removed, name)
		} else {
			ie.Left = append(ie.Left, name)
		}
	}
	if ie.Err == nil {
		return nil
	}
	return &ie
}
