package tokenizer_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mlperf-host/mlperf-host/sdk/tokenizer"
)

// benchText is English prose with code and tables: the repository's own
// documentation.
func benchText(b *testing.B) string {
	b.Helper()
	var parts []string
	for _, p := range []string{"../../README.md", "../../ARCHITECTURE.md", "../../RATIONALE.md"} {
		data, err := os.ReadFile(p)
		require.NoError(b, err)
		parts = append(parts, string(data))
	}
	return strings.Join(parts, "\n")
}

// BenchmarkEncode encodes the documentation, cut in paragraphs, with each
// real vocabulary: tokens/s and allocations per paragraph. The per-word
// cache is warm after the first round, as in a long run.
func BenchmarkEncode(b *testing.B) {
	paras := strings.Split(benchText(b), "\n\n")
	for _, name := range vocabularies {
		b.Run(name, func(b *testing.B) {
			tok := openVocabulary(b, name)
			var dst []int32
			tokens := 0
			for _, p := range paras {
				tokens += len(tok.Encode(p, tokenizer.AddSpecialTokens(false)))
			}
			b.ReportAllocs()
			b.ResetTimer()
			rounds := 0
			for b.Loop() {
				for _, p := range paras {
					dst = tok.AppendEncode(dst[:0], p, tokenizer.AddSpecialTokens(false))
				}
				rounds++
			}
			b.ReportMetric(float64(tokens*rounds)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rounds*len(paras)), "ns/paragraph")
		})
	}
}

// BenchmarkDecode decodes the documentation's ids.
func BenchmarkDecode(b *testing.B) {
	text := benchText(b)
	for _, name := range vocabularies {
		b.Run(name, func(b *testing.B) {
			tok := openVocabulary(b, name)
			ids := tok.Encode(text, tokenizer.AddSpecialTokens(false))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = tok.Decode(ids, true)
			}
			b.ReportMetric(float64(len(ids)*b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
