package report

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Human units. Every number the page shows goes through one of these, so
// that a reader never counts the digits of a nanosecond value.

// duration formats ns with three significant digits in the largest unit
// that keeps it at one or more: "812 ns", "15.9 µs", "7.49 ms", "1.2 s",
// "1 min 16 s", "2 h 5 min".
func duration(ns float64) string {
	switch {
	case math.IsNaN(ns) || math.IsInf(ns, 0):
		return "n/a"
	case ns < 0:
		return "−" + duration(-ns)
	case ns < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 1e6:
		return sig3(ns/1e3) + " µs"
	case ns < 1e9:
		return sig3(ns/1e6) + " ms"
	case ns < 59.95e9:
		return sig3(ns/1e9) + " s"
	case ns < 3599.5e9:
		s := int64(math.Round(ns / 1e9))
		if s%60 == 0 {
			return fmt.Sprintf("%d min", s/60)
		}
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	default:
		m := int64(math.Round(ns / 60e9))
		if m%60 == 0 {
			return fmt.Sprintf("%d h", m/60)
		}
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	}
}

// sig3 formats v (≥ 1) with three significant digits, without trailing
// zeros: 1.2, 15.9, 812.
func sig3(v float64) string {
	var s string
	switch {
	case v >= 99.95:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 9.995:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	default:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	}
	return trimZeros(s)
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// rate formats a per-second rate with thousands separators and four
// significant digits or more, without trailing zeros: "57.96", "310.8",
// "300", "5,322".
func rate(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case math.Abs(v) >= 999.5:
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	case math.Abs(v) >= 99.95:
		return trimZeros(strconv.FormatFloat(v, 'f', 1, 64))
	default:
		return trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
	}
}

// count formats an integer with thousands separators: "11,000".
func count(n int64) string { return group(strconv.FormatInt(n, 10)) }

// group puts a comma every three digits of the integer part of a decimal
// number.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "−", s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}

// ordinal formats a percentile given as a fraction: 0.9 is "90th", 0.999
// "99.9th".
func ordinal(p float64) string {
	return trimZeros(strconv.FormatFloat(p*100, 'f', 2, 64)) + "th"
}

// ratio formats v/base: "×91.8", "×0.0109".
func ratioText(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "n/a"
	case r >= 1:
		return "×" + sig3(r)
	default:
		return "×" + trimZeros(strconv.FormatFloat(r, 'g', 3, 64))
	}
}

// humanValue formats a detail-log value for a reader, choosing the unit
// from the key's MLPerf name: *_ns and the early-stopping estimates are
// nanoseconds (whatever their suffix says), *_ms milliseconds, rates per
// second, counts grouped, seeds as written, booleans yes or no.
func humanValue(key string, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		if b {
			return "yes"
		}
		return "no"
	}
	text := string(raw)
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return text
	}
	switch {
	case strings.Contains(key, "seed"), strings.Contains(key, "permutation"):
		return text
	case strings.HasSuffix(key, "_ns"), strings.HasPrefix(key, "early_stopping_latency"), strings.HasPrefix(key, "result_time_to_output_token"),
		strings.HasSuffix(key, "ttft_latency"), strings.HasSuffix(key, "tpot_latency"):
		return duration(v)
	case strings.HasSuffix(key, "_ms"):
		return duration(v * 1e6)
	case strings.Contains(key, "tokens_per_sec"):
		return rate(v) + " tokens/s"
	case strings.HasSuffix(key, "samples_per_sec"), strings.HasSuffix(key, "samples_per_second"):
		return rate(v) + " samples/s"
	case strings.Contains(key, "qps"):
		return rate(v) + " queries/s"
	case strings.HasSuffix(key, "latency_percentile"):
		return ordinal(v)
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return count(int64(v))
	default:
		return text
	}
}

// estimate is a latency estimate in the LoadGen's early-stopping text, in
// nanoseconds: "Early stopping 90.0th percentile estimate: 9398652".
var estimate = regexp.MustCompile(`(estimate: )(\d+)`)

// humanEstimates writes the early-stopping text's estimates in human units.
func humanEstimates(s string) string {
	return estimate.ReplaceAllStringFunc(s, func(m string) string {
		sub := estimate.FindStringSubmatch(m)
		v, err := strconv.ParseFloat(sub[2], 64)
		if err != nil {
			return m
		}
		return sub[1] + duration(v)
	})
}
