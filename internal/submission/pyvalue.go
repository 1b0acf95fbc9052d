package submission

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The official checker is Python: these read JSON values as it does.

// pyTruthy is Python's truth of a JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// pyRepr writes a JSON value the way the messages quote it: strings in
// quotes, null as None, anything else as JSON.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return strconv.Quote(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// pyStrip is Python's str.strip() for the ASCII whitespace the files hold.
func pyStrip(s string) string { return strings.Trim(s, " \t\n\r\x0b\x0c") }

// yamlLoads reports whether a YAML document loads to something, as
// yaml.safe_load's answer is checked (an empty document is None).
func yamlLoads(b []byte) bool {
	var v any
	return yaml.Unmarshal(b, &v) == nil && v != nil
}
