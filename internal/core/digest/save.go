package digest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentx-dev/agentx/internal/core/atomicfile"
	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/workspace"
)

// Between is the window [since, until); an empty or inverted one is
// INVALID_INPUT.
func Between(since, until time.Time) (Window, error) {
	until = until.UTC()
	if !since.Before(until) {
		return Window{}, errcode.New(errcode.InvalidInput, "digest: --since %s is not before --until %s",
			since.UTC().Format(time.RFC3339), until.Format(time.RFC3339))
	}
	return Window{Since: since.UTC(), Until: until}, nil
}

// MaxDays is the longest window a day count asks for: ten years, as the
// view's digest page allows (a longer one only makes every series long).
const MaxDays = 3660

// ErrDays is a window asked for by a day count below one or past MaxDays
// (spelt out: a package-level value is static data, not an initialiser;
// TestWindowFor checks the two agree).
var ErrDays = errors.New("digest: --days must be 1 to 3660")

// WindowFor is the window a command line asks for, against now: since
// and until as `--since`/`--until` give them (dates, timestamps or
// durations, both read against now; until defaults to now), else the
// last days days up to until (ErrDays below one or past MaxDays).
func WindowFor(now time.Time, since, until string, days int) (Window, error) {
	end := now
	if until != "" {
		t, err := clock.ParseWhen(until, now)
		if err != nil {
			return Window{}, err
		}
		end = t
	}
	if since == "" {
		if days < 1 || days > MaxDays {
			return Window{}, fmt.Errorf("%w (got %d)", ErrDays, days)
		}
		return LastDays(end, days), nil
	}
	from, err := clock.ParseWhen(since, now)
	if err != nil {
		return Window{}, err
	}
	return Between(from, end)
}

// SaveName is the file a workspace files the digest of w under: the ISO
// week's name for a window of exactly seven days, the window's dates for
// any other (a 30-day digest must not replace a week's).
func SaveName(w Window) string {
	if w.Until.Sub(w.Since) == 7*24*time.Hour {
		return FileName(w)
	}
	return "DIGEST-" + w.Since.UTC().Format("2006-01-02") + "_" + w.Until.UTC().Format("2006-01-02") + ".md"
}

// SavePath is where ws files the digest of w: .agentx/digests/SaveName.
// A directory with no .agentx/ has nowhere to keep it.
func SavePath(ws workspace.Workspace, w Window) (string, error) {
	if _, err := os.Stat(ws.AgentxDir()); err != nil {
		return "", errcode.New(errcode.InvalidInput, "digest --save: no .agentx/ in %s", ws.Root).
			WithHint("run `agentx-hook init` first, or use --out FILE")
	}
	return filepath.Join(ws.AgentxDir(), "digests", SaveName(w)), nil
}

// Write writes the digest's text to file, whole or not at all.
func Write(file, text string) error {
	if err := atomicfile.Write(file, []byte(text), atomicfile.Options{}); err != nil {
		return fmt.Errorf("write digest: %w", err)
	}
	return nil
}

// IssueURLs links issue numbers to the GitHub repository repo ("owner/
// name"); nil for none, and issues render as #N.
func IssueURLs(repo string) func(int) string {
	if repo == "" {
		return nil
	}
	return func(n int) string { return fmt.Sprintf("https://github.com/%s/issues/%d", repo, n) }
}
