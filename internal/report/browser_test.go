package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium finds a Chromium or Chrome binary, "" when there is none.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// headless runs the browser on page with args, offline: a fresh profile,
// no background networking, every host name unresolvable.
func headless(t *testing.T, browser, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + t.TempDir()}, append(args, "file://"+page)...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s: %s", browser, stderr.String())
	return stdout.Bytes()
}

// TestComparisonInBrowser opens the comparison report in a real headless
// browser: the DOM it builds passes the same checks as the parsed page,
// and its screenshot shows every run's colour, so the inline SVG was
// drawn with nothing fetched. It skips where no Chromium is installed
// (apt-get install chromium); the HTML-parser checks run everywhere.
func TestComparisonInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium()
	if browser == "" {
		t.Skip("no chromium on PATH (apt-get install chromium): the HTML-parser checks (checkPage) cover the page's structure")
	}
	runs := []*Run{loadFixture(t, "onnx-offline", "Offline", true), loadFixture(t, "onnx-ort-offline", "Offline", true)}
	var b bytes.Buffer
	_, err := WriteComparison(&b, runs)
	require.NoError(t, err)
	page := filepath.Join(t.TempDir(), "compare.html")
	require.NoError(t, os.WriteFile(page, b.Bytes(), 0o644))

	t.Run("dom", func(t *testing.T) {
		t.Parallel()
		dom := headless(t, browser, page, "--dump-dom")
		checkPage(t, string(dom), comparisonWant)
	})
	t.Run("screenshot", func(t *testing.T) {
		t.Parallel()
		shot := filepath.Join(t.TempDir(), "compare.png")
		headless(t, browser, page, "--window-size=1300,2200", "--screenshot="+shot)
		// REPORT_SCREENSHOT_DIR keeps the screenshot for a person to look at.
		if dir := os.Getenv("REPORT_SCREENSHOT_DIR"); dir != "" {
			b, err := os.ReadFile(shot)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "compare.png"), b, 0o644))
		}
		f, err := os.Open(shot)
		require.NoError(t, err)
		defer f.Close()
		img, err := png.Decode(f)
		require.NoError(t, err)
		assert.Equal(t, 1300, img.Bounds().Dx())
		// Count the pixels of each run's colour: the bars of the result
		// metric and the curves of the percentiles.
		want := map[string]int{}
		for i := range runs {
			want[seriesColors[i]] = 0
		}
		bounds := img.Bounds()
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			for x := bounds.Min.X; x < bounds.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				c := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, bl>>8)
				if _, ok := want[c]; ok {
					want[c]++
				}
			}
		}
		for i := range runs {
			assert.Greater(t, want[seriesColors[i]], 500, "run %d (%s) is drawn in %s", i, runs[i].Name, seriesColors[i])
		}
	})
}
