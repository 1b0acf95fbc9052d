package submission

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// VerifyTEST09 is compliance/TEST09/run_verification.py on the TEST09
// run's accuracy log: the mean output length, in 4-byte tokens (a
// trailing part of one is not counted; data that is not hex counts 0),
// within [minTokens, maxTokens], the audit.config's
// test09_min_output_tokens and test09_max_output_tokens. The text is the
// script's verify_output_len.txt.
//
// # Errors
//
// A log that is not a JSON array, or one without entries: the script
// writes no verdict for those.
func VerifyTEST09(log io.Reader, minTokens, maxTokens float64) (Verdict, error) {
	var entries []struct {
		Data any `json:"data"`
	}
	if err := json.NewDecoder(bufio.NewReader(log)).Decode(&entries); err != nil {
		return Verdict{}, fmt.Errorf("accuracy log: %w", err)
	}
	if len(entries) == 0 {
		return Verdict{}, errors.New("accuracy log: no entries")
	}
	lengths := make([]int, len(entries))
	for i, e := range entries {
		lengths[i] = tokens4(e.Data)
	}
	sum, lo, hi := 0, lengths[0], lengths[0]
	for _, n := range lengths {
		sum += n
		lo, hi = min(lo, n), max(hi, n)
	}
	mean := float64(sum) / float64(len(lengths))
	variance := 0.0
	for _, n := range lengths {
		variance += (float64(n) - mean) * (float64(n) - mean)
	}
	std := math.Sqrt(variance / float64(len(lengths)))
	minPass, maxPass := mean >= minTokens, mean <= maxTokens
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nTEST09: Verify Output Token Length in Performance Mode\n%s\n\n", rule80, rule80)
	fmt.Fprintf(&b, "Output Token Length Statistics\n%s\n", strings.Repeat("-", 40))
	fmt.Fprintf(&b, "Total samples: %d\nMean output tokens: %.2f\nMin output tokens: %d\nMax output tokens: %d\nStd deviation: %.2f\n",
		len(lengths), mean, lo, hi, std)
	fmt.Fprintf(&b, "\n%s\nVerification Results\n%s\n", rule80, rule80)
	fmt.Fprintf(&b, "Mean output tokens: %.2f\nMin threshold: %s\nMax threshold: %s\nMin check pass: %s\nMax check pass: %s\n",
		mean, pyFloat(minTokens), pyFloat(maxTokens), pyBool(minPass), pyBool(maxPass))
	v := Verdict{Pass: minPass && maxPass}
	if v.Pass {
		b.WriteString("\n" + Pass + "\n")
	} else {
		b.WriteString("\n" + Fail + "\n")
	}
	v.Text = b.String()
	return v, nil
}

// tokens4 is the script's token count of an entry's data: whole 4-byte
// tokens of its hex; 0 for no data and for data the script cannot decode.
func tokens4(data any) int {
	s, ok := data.(string)
	if !ok {
		return 0
	}
	n, ok := pyFromHex(s)
	if !ok {
		return 0
	}
	return n / 4
}

// pyFromHex returns the length of Python's bytes.fromhex(s): pairs of
// hex digits, ASCII whitespace allowed between them; false where it
// raises.
func pyFromHex(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); {
		if strings.IndexByte(" \t\n\r\v\f", s[i]) >= 0 {
			i++
			continue
		}
		if i+1 >= len(s) || !isHex(s[i]) || !isHex(s[i+1]) {
			return 0, false
		}
		n, i = n+1, i+2
	}
	return n, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
