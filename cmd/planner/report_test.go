package main

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// reportSections are the ids of the document's sections.
var reportSections = []string{"question", "setup", "plans", "memory", "steptime", "frontier", "misses", "sensitivity", "calibration", "run", "launch"}

// TestReportGolden: the document in both formats, byte for byte.
func TestReportGolden(t *testing.T) {
	args := []string{"report", "--model", "llama3-70b", "--gpus", "64", "--top", "3", "--tokens", "2T", "--gpu-hour-price", "2"}
	for _, format := range []string{"html", "markdown"} {
		code, out, errs := runCLI(t, append(args, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		_, again, _ := runCLI(t, append(args, "--format", format)...)
		if out != again {
			t.Errorf("%s: two runs differ", format)
		}
		golden(t, "report_"+format, out)
	}
}

// TestReportHTMLSelfContained: every section and chart is there and
// nothing is fetched from elsewhere.
func TestReportHTMLSelfContained(t *testing.T) {
	code, out, errs := runCLI(t, "report", "--model", "llama3-70b", "--gpus", "64", "--top", "3", "--tokens", "2T")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, id := range reportSections {
		if !strings.Contains(out, `<section id="`+id+`">`) {
			t.Errorf("no section %q", id)
		}
	}
	if n := strings.Count(out, "<svg"); n != 3 {
		t.Errorf("%d inline SVG charts, want 3 (memory, step time, frontier)", n)
	}
	for _, external := range []string{"<script", "<link", "<img", `src="http`, "@import"} {
		if strings.Contains(out, external) {
			t.Errorf("the document loads %q", external)
		}
	}
	code, md, _ := runCLI(t, "report", "--model", "llama3-70b", "--gpus", "64", "--top", "3", "--tokens", "2T", "--format", "markdown")
	for _, h := range []string{"## Question", "## Top plans", "## Memory per stage", "## Sensitivity", "## Calibration behind the numbers", "## Launch configs", "### megatron"} {
		if code != 0 || !strings.Contains(md, h) {
			t.Errorf("markdown lacks %q", h)
		}
	}
}

func TestReportBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "pdf"}, `--format "pdf" is not html or markdown`},
		{[]string{"--json"}, "report writes a document"},
		{[]string{"--export", "jax"}, `unknown framework "jax"`},
		{[]string{"--out", "/no/such/dir/r.html"}, "writing /no/such/dir/r.html"},
	} {
		args := append([]string{"report", "--model", "llama3-70b", "--gpus", "64", "--top", "2"}, tt.args...)
		code, _, errs := runCLI(t, args...)
		want := 2
		if strings.HasPrefix(tt.want, "writing") {
			want = 1
		}
		if code != want || !strings.Contains(errs, tt.want) {
			t.Errorf("planner %s: exit %d, %q; want exit %d and %q", strings.Join(args, " "), code, errs, want, tt.want)
		}
	}
}

// TestReportInChromium opens the headline report in headless Chromium
// and checks the screenshot: full size and not blank. It skips only
// when Chromium is not installed.
func TestReportInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	if code, _, errs := runCLI(t, "report", "--model", "llama3-405b", "--gpus", "128", "--out", page); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	shot := filepath.Join(dir, "r.png")
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--screenshot="+shot, "--window-size=1280,4000", "file://"+page)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v", err)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("chromium did not finish in 2 minutes")
	}
	img := decodePNG(t, shot)
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 4000 {
		t.Errorf("screenshot is %dx%d, want 1280x4000", b.Dx(), b.Dy())
	}
	colours, inked := pixelStats(img)
	if colours < 50 || inked < 0.03 {
		t.Errorf("screenshot looks blank: %d distinct colours, %.1f%% non-white", colours, 100*inked)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// pixelStats counts an image's distinct colours and its share of
// pixels that are not white.
func pixelStats(img image.Image) (colours int, inked float64) {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	var dark int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
				dark++
			}
		}
	}
	return len(seen), float64(dark) / float64(b.Dx()*b.Dy())
}

// TestReportExtrapolated: on a GPU with no measured rows (mi300x) the calibration
// section says the numbers are extrapolated; without --gpus the review
// covers the fewest GPUs, here one node, with no smaller cluster below.
func TestReportExtrapolated(t *testing.T) {
	code, md, errs := runCLI(t, "report", "--model", "llama3-70b", "--gpu", "mi300x", "--top", "2", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Extrapolated: none of the", "On how few mi300x GPUs", "No smaller whole-node cluster"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
