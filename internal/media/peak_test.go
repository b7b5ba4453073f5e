package media

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/harmony/harmony/internal/media/mediatest"
)

// Peak memory of concurrent uploads, measured in a fresh process (see
// docs/PERFORMANCE.md): scripts/bench 1x media.

// concurrentUploads is how many Process calls the measurement starts at
// once.
const concurrentUploads = 4

// scanSizes are the appointment scan's: the largest variant any upload
// asks for, so the most memory.
var scanSizes = []int{1600}

// peakFixture is a kind of image, made as large as the budget accepts.
type peakFixture struct {
	name string
	// make returns an n×n image of the kind.
	make func(t testing.TB, n int) []byte
}

var peakFixtures = []peakFixture{
	{"png-16bit", func(t testing.TB, n int) []byte { return mediatest.DeepPNG(t, n, n) }},
	{"png-rgba", func(t testing.TB, n int) []byte {
		return mediatest.FlatPNG(t, n, n, color.NRGBA{0x12, 0x34, 0x56, 0x80})
	}},
	{"png-grey", func(t testing.TB, n int) []byte { return mediatest.FlatPNG(t, n, n, color.Gray{0x80}) }},
	{"jpeg-420", func(t testing.TB, n int) []byte {
		return mediatest.FlatJPEG(t, n, n, color.RGBA{0x12, 0x34, 0x56, 0xff})
	}},
}

// BenchmarkPeakRSS reports the peak resident memory (VmHWM) of a fresh
// process that runs concurrentUploads Process calls at once on the
// largest square image of each kind that Process accepts for a scan.
// "idle" is the same process without uploads.
func BenchmarkPeakRSS(b *testing.B) {
	dir := b.TempDir()
	b.Run("idle", func(b *testing.B) { reportPeakRSS(b, "", 0) })
	for _, fx := range peakFixtures {
		b.Run(fx.name, func(b *testing.B) {
			n, data := largestAccepted(b, fx)
			file := filepath.Join(dir, fx.name)
			if err := os.WriteFile(file, data, 0o600); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer() // time the child only
			reportPeakRSS(b, file, n)
		})
	}
}

// largestAccepted is the largest n×n image of the kind within
// MemoryBudget and DefaultMaxPixels, and n. The search reads a small
// image's header, as the cost depends on the header and the size; the
// file's own length counts too, so the last step is on real files.
func largestAccepted(tb testing.TB, fx peakFixture) (int, []byte) {
	header := fx.make(tb, 16)
	fits := func(n int) bool {
		cfg := image.Config{Width: n, Height: n}
		return int64(n)*int64(n) <= DefaultMaxPixels &&
			peakMemory(Sniff(header), cfg, header, variantSizes(n, n, scanSizes), false) <= MemoryBudget
	}
	lo, hi := 16, 1<<16 // fits(lo), !fits(hi)
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	for n := lo; n > 16; n-- {
		data := fx.make(tb, n)
		j, err := plan(data, Options{MaxPixels: DefaultMaxPixels, Sizes: scanSizes})
		if err != nil {
			tb.Fatal(err)
		}
		if j.memory <= MemoryBudget {
			return n, data
		}
	}
	tb.Fatal("no image of this kind fits")
	return 0, nil
}

// reportPeakRSS runs the child process b.N times and reports its largest
// VmHWM.
func reportPeakRSS(b *testing.B, file string, side int) {
	var peak int64
	for range b.N {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSChild$")
		cmd.Env = append(os.Environ(), "HARMONY_MEDIA_PEAK_FILE="+file, "HARMONY_MEDIA_PEAK_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		_, kb, ok := strings.Cut(string(out), "VmHWM-kB ")
		kb, _, _ = strings.Cut(kb, "\n")
		n, err := strconv.ParseInt(kb, 10, 64)
		if !ok || err != nil {
			b.Fatalf("child printed no peak:\n%s", out)
		}
		peak = max(peak, n)
	}
	b.ReportMetric(float64(peak)/1024, "peak-MiB")
	b.ReportMetric(float64(side), "side-px")
}

// TestPeakRSSChild is BenchmarkPeakRSS's fresh process: it runs the
// uploads and prints its VmHWM. It does nothing in a normal test run.
func TestPeakRSSChild(t *testing.T) {
	if os.Getenv("HARMONY_MEDIA_PEAK_CHILD") == "" {
		t.Skip("run by BenchmarkPeakRSS")
	}
	if file := os.Getenv("HARMONY_MEDIA_PEAK_FILE"); file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, concurrentUploads)
		for range concurrentUploads {
			wg.Go(func() {
				_, err := Process(context.Background(), bytes.NewReader(data), Options{Sizes: scanSizes})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	fmt.Printf("VmHWM-kB %d\n", vmHWM(t))
}

// vmHWM is this process's peak resident set, in kB.
func vmHWM(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
