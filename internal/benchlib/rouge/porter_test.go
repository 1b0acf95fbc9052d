package rouge

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPorterStem: every stem of testdata/porter/stems.txt, which NLTK's
// PorterStemmer wrote (tools/accuracyref/porter_fixture.py: Porter's
// paper's examples and words of the MLPerf documentation).
func TestPorterStem(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("testdata", "porter", "stems.txt"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		word, stem, ok := strings.Cut(sc.Text(), " ")
		require.True(t, ok, sc.Text())
		assert.Equal(t, stem, porterStem(word), "stem of %q", word)
		n++
	}
	require.NoError(t, sc.Err())
	assert.Greater(t, n, 1000)
}
