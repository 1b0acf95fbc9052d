package exitcode

import (
	"fmt"
	"strings"
)

// Markdown renders the table as the Markdown of docs/exit-codes.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# mlperf-host exit codes\n\n")
	b.WriteString("Every mlperf-host command exits with one of these codes. The table is generated from\n")
	b.WriteString("`internal/exitcode` (`go test ./internal/exitcode -update` rewrites this file), so it is\n")
	b.WriteString("always what the binary does. Errors are printed on stderr as `mlperf-host: <what failed>`,\n")
	b.WriteString("followed by `hint: <what to do>` when there is something to do.\n\n")
	b.WriteString("| code | name | when | what to do |\n|---:|---|---|---|\n")
	for _, r := range Table() {
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s |\n", int(r.Code), r.Name, r.Meaning, r.Action)
	}
	b.WriteString("\nScripts should test for 0 and treat every other code as failure; the distinct codes\n")
	b.WriteString("tell CI which class of problem to report. A run interrupted by Ctrl-C exits 130 after\n")
	b.WriteString("closing the plugin (killing it if it has not closed a second after the logs are written)\n")
	b.WriteString("and flushing the logs written so far, and lists them; a second Ctrl-C kills the plugin at\n")
	b.WriteString("once. The verdict of a complete run and its exit code always agree: a plugin that fails\n")
	b.WriteString("or hangs in Close afterwards (stopped after host.close_timeout) gets a warning naming it\n")
	b.WriteString("and what it did, and the code follows the result the summary gives.\n")
	return b.String()
}
