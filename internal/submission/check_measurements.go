package submission

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// measurements is the checker's MeasurementsCheck: the measurements
// description it finds ([Layout.FindMeasurementsFile]) with every
// required field meaningful, user.conf and README.md beside it, the
// submitter's code directory.
func (c *checker) measurements(l Layout) {
	path, found := l.FindMeasurementsFile()
	dir := filepath.Dir(path)
	if !found {
		dir = path
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			c.add(dir, "missing measurements directory (the checker stops on this tree)")
			return
		}
		c.add(dir, "no measurements description %s*.json (MeasurementsCheck.missing_check)", l.System)
	} else if b, err := os.ReadFile(path); err != nil {
		c.add(path, "missing measurements description (MeasurementsCheck.missing_check)")
	} else {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			c.add(path, "not a JSON object: %v (the checker stops on this tree)", err)
		} else {
			for _, f := range c.round.MeasurementsFields {
				if v, ok := m[f]; !ok {
					c.add(path, "field %s is missing (required_fields_check)", f)
				} else if !pyTruthy(v) {
					c.add(path, "field %s needs a meaningful value (required_fields_check)", f)
				}
			}
		}
	}
	for _, f := range c.round.MeasurementsFiles {
		p := filepath.Join(dir, f)
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			c.add(p, "missing measurements file (required_files_check)")
		} else if st.Size() == 0 {
			c.add(p, "empty measurements file (required_files_check)")
		}
	}
	if _, err := os.Stat(l.SrcDir()); err != nil {
		c.add(l.SrcDir(), "missing source directory (directory_exist_check)")
	}
}
