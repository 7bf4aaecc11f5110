// Package clock owns time for the core: the Clock interface that lets tests
// control "now" (no test sleeps through an SLA), and the one timestamp
// format every file we write uses.
package clock

import (
	"fmt"
	"sync"
	"time"
)

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// Real is the wall clock.
type Real struct{}

// Now returns the current time.
func (Real) Now() time.Time { return time.Now() }

// Shifted is the wall clock started at another instant: it runs on from
// there ($AGENTX_NOW lets end-to-end tests and the demo step past SLAs
// without sleeping).
type Shifted struct{ offset time.Duration }

// StartingAt returns a clock that reads t now and runs on.
func StartingAt(t time.Time) Shifted { return Shifted{offset: time.Until(t)} }

// Now returns the shifted time.
func (c Shifted) Now() time.Time { return time.Now().Add(c.offset) }

// Fake is a clock a test moves by hand. Safe for concurrent use.
type Fake struct {
	mu sync.Mutex
	t  time.Time
}

// NewFake returns a fake clock set to t.
func NewFake(t time.Time) *Fake { return &Fake{t: t} }

// Now returns the fake time.
func (f *Fake) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }

// Advance moves the fake time forward by d.
func (f *Fake) Advance(d time.Duration) { f.mu.Lock(); f.t = f.t.Add(d); f.mu.Unlock() }

// Set sets the fake time.
func (f *Fake) Set(t time.Time) { f.mu.Lock(); f.t = t; f.mu.Unlock() }

// layout is the reference implementation's timestamp: UTC with exactly
// three fraction digits (JavaScript's Date.toISOString()).
const layout = "2006-01-02T15:04:05.000Z"

// Format renders t as the reference timestamp.
func Format(t time.Time) string { return t.UTC().Format(layout) }

// Parse reads an RFC 3339 timestamp with 0 to 9 fraction digits: PowerShell
// writes 7, later tools none, ours 3.
func Parse(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q is not RFC 3339: %w", s, err)
	}
	return t, nil
}
