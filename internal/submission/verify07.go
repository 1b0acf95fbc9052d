package submission

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// TEST07Pattern is compliance/TEST07/run_verification.py's default
// --score-pattern: the accuracy script's exact_match.
var TEST07Pattern = regexp.MustCompile(`'exact_match':\s*([\d.]+)`)

// rule80 is the scripts' "=" * 80.
var rule80 = strings.Repeat("=", 80)

// VerifyTEST07 is compliance/TEST07/run_verification.py given what the
// accuracy script printed on the TEST07 run's log (output, stdout and
// stderr together): its first score pattern's number must be at least
// threshold (the audit.config's test07_accuracy_threshold). The text is
// the script's verify_accuracy.txt: the accuracy script's output, then
// its summary.
func VerifyTEST07(output string, threshold float64, pattern *regexp.Regexp) Verdict {
	var b strings.Builder
	b.WriteString(output)
	b.WriteString("\n" + rule80 + "\nTEST07 Verification Summary\n" + rule80 + "\n")
	score, ok := test07Score(output, pattern)
	if !ok {
		b.WriteString("Error: Could not parse accuracy score\n" + Fail + "\n")
		return Verdict{Text: b.String()}
	}
	pass := score >= threshold
	fmt.Fprintf(&b, "Accuracy score: %s\nAccuracy threshold: %s\nAccuracy check pass: %s\n", pyFloat(score), pyFloat(threshold), pyBool(pass))
	if pass {
		b.WriteString(Pass + "\n")
	} else {
		b.WriteString(Fail + "\n")
	}
	return Verdict{Text: b.String(), Pass: pass}
}

// test07Score is the script's re.search and float of the first group:
// none when the pattern does not match or its number does not read.
func test07Score(output string, pattern *regexp.Regexp) (float64, bool) {
	m := pattern.FindStringSubmatch(output)
	if len(m) < 2 {
		return 0, false
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	return f, true
}
