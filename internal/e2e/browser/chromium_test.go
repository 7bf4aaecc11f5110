//go:build browser && unix

// The headless Chromium the view tests drive through chromedp: what its
// pages logged (errors, warnings, exceptions, failed loads, the bytes each
// page loaded), and a page's visit, evaluation, text, waits and screenshots.

package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browser is one headless Chromium with what its pages logged.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
	bytes  map[string]float64 // page name -> bytes loaded while on it
	page   string
}

func newBrowser(t *testing.T) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browserPath(t)),
		chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{bytes: map[string]float64{}}
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithListener(b.event))
	t.Cleanup(func() { cancelC(); cancelA() })
	b.ctx = ctx
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", browserPath(t), err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("enable the network domain: %v", err)
	}
	return b
}

// event keeps what the pages logged: errors, warnings, exceptions, failed
// loads, and the bytes each page loaded.
func (b *browser) event(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == "error" || e.Type == "warning" || e.Type == "assert" {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, fmt.Sprint(a.Value, a.Description))
			}
			b.errors = append(b.errors, fmt.Sprintf("console.%s on %s: %s", e.Type, b.page, strings.Join(parts, " ")))
		}
	case *runtime.EventExceptionThrown:
		b.errors = append(b.errors, fmt.Sprintf("exception on %s: %s", b.page, e.ExceptionDetails.Text))
	case *cdplog.EventEntryAdded:
		if e.Entry != nil && (e.Entry.Level == "error" || e.Entry.Level == "warning") {
			b.errors = append(b.errors, fmt.Sprintf("log %s on %s: %s (%s)", e.Entry.Level, b.page, e.Entry.Text, e.Entry.URL))
		}
	case *network.EventLoadingFinished:
		b.bytes[b.page] += e.EncodedDataLength
	case *network.EventLoadingFailed:
		if !e.Canceled {
			b.errors = append(b.errors, fmt.Sprintf("load failed on %s: %s", b.page, e.ErrorText))
		}
	}
}

func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates js in the page and decodes its value.
func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("eval %s: %v", js, err)
	}
	return v
}

// visit opens a page and waits for its main part; the bytes it loads are
// counted under name.
func (b *browser) visit(t *testing.T, name, url string) {
	t.Helper()
	b.mu.Lock()
	b.page = name
	b.mu.Unlock()
	b.do(t, "open "+name, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#main")))
}

func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	return eval[string](t, b, fmt.Sprintf("(document.querySelector(%q) || {innerText: ''}).innerText", sel))
}

// waitFor waits until js is true in the page.
func (b *browser) waitFor(t *testing.T, what, js string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		t.Fatalf("wait for %s: %v", what, err)
	}
}

// shot saves a screenshot of the page as NAME.png under
// $AGENTX_VIEW_SHOTS (else the test's temporary directory).
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("AGENTX_VIEW_SHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
