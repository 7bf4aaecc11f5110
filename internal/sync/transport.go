package sync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultWriteInterval paces writes under GitHub's secondary limits: its
// guidance is at most 80 content-creating requests a minute, one at a time.
const DefaultWriteInterval = 750 * time.Millisecond

// Sleeper waits for d or until ctx ends. Tests inject one that returns at
// once and records what it was asked for.
type Sleeper func(ctx context.Context, d time.Duration) error

// SleepCtx is the real Sleeper.
func SleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// DefaultMaxWait is how long one run may wait on GitHub's rate limits in
// all (the max-wait input): past it the run ends and the next one goes on.
const DefaultMaxWait = 10 * time.Minute

// DefaultAttemptTimeout bounds one HTTP exchange. It is per attempt, never
// per request: a wait for Retry-After between attempts is not cut short by
// it (an http.Client Timeout would count the sleeps too).
const DefaultAttemptTimeout = 2 * time.Minute

// Transport is the RoundTripper under the go-github client. It sends
// writes one at a time with at least WriteInterval between their starts,
// and retries what GitHub asks to retry: 403 secondary limits and 429 after
// Retry-After (go-github v66 does not recognise 429 itself), an exhausted
// primary quota after x-ratelimit-reset, and 5xx with exponential backoff.
// It alone waits on rate limits: go-github never sees an exhausted quota
// (it would sleep until the reset, unbounded, or refuse every later call),
// and a wait past what is left of MaxWait ends the request with a
// *RateLimitedError instead.
type Transport struct {
	Base          http.RoundTripper
	WriteInterval time.Duration
	// MaxAttempts bounds tries per request (default 6).
	MaxAttempts int
	// MaxWait is the time the whole run may spend waiting on GitHub
	// (Retry-After, quota resets, 5xx back-off; pacing not included);
	// default DefaultMaxWait.
	MaxWait time.Duration
	// AttemptTimeout bounds each exchange (default DefaultAttemptTimeout).
	AttemptTimeout time.Duration
	Sleep          Sleeper
	Now            func() time.Time
	// Debug, when set, gets one line per API call (method, path, status,
	// duration, quota left) and per wait.
	Debug func(format string, args ...any)
	// Log, when set, gets a line for every wait on GitHub of a second or
	// more (what for, how long, what is left of MaxWait): a run that sits
	// still says why.
	Log func(format string, args ...any)

	writeMu   sync.Mutex
	lastWrite time.Time

	// exhausted is when the primary quota resets after a response said
	// none is left: no request goes out before it.
	quotaMu   sync.Mutex
	exhausted time.Time

	statsMu sync.Mutex
	retries int
	waited  time.Duration
}

// Stats reports the retries made and the time spent waiting on GitHub.
func (t *Transport) Stats() (retries int, waited time.Duration) {
	t.statsMu.Lock()
	defer t.statsMu.Unlock()
	return t.retries, t.waited
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	return SleepCtx(ctx, d)
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		// One write at a time, paced: holding the mutex across the request
		// (retries included) is what makes "one at a time" true.
		t.writeMu.Lock()
		defer t.writeMu.Unlock()
		if err := t.pace(ctx); err != nil {
			return nil, err
		}
		defer func() { t.lastWrite = t.now() }()
	}
	attempts, _, base := t.limits()
	// A body that cannot be rewound is sent once.
	once := req.Body != nil && req.GetBody == nil
	for attempt := 1; ; attempt++ {
		if err := t.waitQuota(ctx, req); err != nil {
			return nil, err
		}
		r, err := rewind(req, attempt)
		if err != nil {
			return nil, err
		}
		resp, err := t.exchange(base, r)
		if err != nil {
			if err := t.afterNetworkError(ctx, req, err, attempt, attempts, once); err != nil {
				return nil, err
			}
			if found, err := landedAfterAll(ctx, 0); found != nil || err != nil {
				return found, err
			}
			continue
		}
		code := resp.StatusCode
		if again, err := t.retry(ctx, req, resp, attempt, attempts, once); !again || err != nil {
			if err != nil {
				return nil, err
			}
			return resp, nil
		}
		if found, err := landedAfterAll(ctx, code); found != nil || err != nil {
			return found, err
		}
	}
}

// afterNetworkError waits before the next attempt after err, or returns
// the error that ends the request.
func (t *Transport) afterNetworkError(ctx context.Context, req *http.Request, err error, attempt, attempts int, once bool) error {
	if ctx.Err() != nil || attempt >= attempts || once {
		return err
	}
	if werr := t.wait(ctx, backoff(attempt), "a network error: "+err.Error(), req); werr != nil {
		if errors.Is(werr, ErrRateLimited) {
			return err // max-wait spent: the error itself is the news
		}
		return werr
	}
	return nil
}

// createCheckKey marks a create whose first attempt may have landed
// although GitHub answered a 5xx (the comment was created, the answer
// was lost): before it is sent again, the check says whether it landed.
type createCheckKey struct{}

// createCheck returns the response the landed create would have had, or
// nil when it did not land.
type createCheck func(ctx context.Context) (*http.Response, error)

func withCreateCheck(ctx context.Context, check createCheck) context.Context {
	return context.WithValue(ctx, createCheckKey{}, check)
}

// landedAfterAll asks a create's check after a server error or a lost
// connection (code 0): the answers after which the create may have
// happened.
func landedAfterAll(ctx context.Context, code int) (*http.Response, error) {
	check, ok := ctx.Value(createCheckKey{}).(createCheck)
	if !ok || check == nil || (code != 0 && code < 500) {
		return nil, nil
	}
	return check(withCreateCheck(ctx, nil)) // the check's own reads are not creates
}

// createdResponse is a 201 carrying v as JSON, as the create would have
// been answered.
func createdResponse(v any) (*http.Response, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusCreated, Status: "201 Created", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, Body: io.NopCloser(bytes.NewReader(data)),
		ContentLength: int64(len(data))}, nil
}

// retry decides after a response: false to hand it to the caller, true
// after waiting for the next attempt, or an error when the wait would
// pass max-wait (the response is then drained).
func (t *Transport) retry(ctx context.Context, req *http.Request, resp *http.Response, attempt, attempts int, once bool) (bool, error) {
	wait, retry := t.retryAfter(resp, attempt)
	kind := limitKind(resp) // before noteQuota hides the quota headers
	t.noteQuota(resp)
	if !retry || once {
		return false, nil
	}
	limited := resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests
	if attempt >= attempts {
		if !limited {
			return false, nil
		}
		drain(resp)
		return false, t.limited(req, kind, wait, "still limited after "+strconv.Itoa(attempts)+" attempts")
	}
	drain(resp)
	reason := fmt.Sprintf("HTTP %d", resp.StatusCode)
	if limited {
		reason = kind
	}
	if werr := t.wait(ctx, wait, reason, req); werr != nil {
		switch {
		case errors.Is(werr, ErrRateLimited) && limited:
			return false, t.limited(req, kind, wait, "")
		case errors.Is(werr, ErrRateLimited):
			return false, fmt.Errorf("GitHub answered HTTP %d, and waiting %s to retry would pass max-wait", resp.StatusCode, wait)
		}
		return false, werr
	}
	if limited {
		// The wait covered the quota's reset as well.
		t.quotaMu.Lock()
		t.exhausted = time.Time{}
		t.quotaMu.Unlock()
	}
	return true, nil
}

// drain empties and closes a body so the connection is reused; a failure
// only costs that.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// exchange sends one attempt under AttemptTimeout; the deadline lasts
// until the body is closed, so reading it is covered too.
func (t *Transport) exchange(base http.RoundTripper, r *http.Request) (*http.Response, error) {
	timeout := t.AttemptTimeout
	if timeout <= 0 {
		timeout = DefaultAttemptTimeout
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	start := time.Now()
	resp, err := base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		t.debug("api: %s %s: %v after %s", r.Method, r.URL.Path, err, time.Since(start).Round(time.Millisecond))
		return nil, err
	}
	t.debug("api: %s %s -> %d in %s (rate limit remaining %s)", r.Method, r.URL.Path, resp.StatusCode,
		time.Since(start).Round(time.Millisecond), orDash(resp.Header.Get("X-RateLimit-Remaining")))
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (t *Transport) debug(format string, args ...any) {
	if t.Debug != nil {
		t.Debug(format, args...)
	}
}

// pace waits until WriteInterval has passed since the last write.
func (t *Transport) pace(ctx context.Context) error {
	if t.lastWrite.IsZero() || t.WriteInterval <= 0 {
		return nil
	}
	if d := t.lastWrite.Add(t.WriteInterval).Sub(t.now()); d > 0 {
		return t.sleep(ctx, d)
	}
	return nil
}

// limits returns the attempts, the longest wait and the transport, with
// their defaults.
func (t *Transport) limits() (int, time.Duration, http.RoundTripper) {
	attempts := t.MaxAttempts
	if attempts <= 0 {
		attempts = 6
	}
	maxWait := t.MaxWait
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return attempts, maxWait, base
}

// rewind returns the request for attempt: req itself first, then a clone
// with a fresh body.
func rewind(req *http.Request, attempt int) (*http.Request, error) {
	if attempt == 1 {
		return req, nil
	}
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("rewind request body: %w", err)
		}
		r.Body = body
	}
	return r, nil
}

// wait sleeps d for reason, within what is left of MaxWait: a longer wait
// is refused with ErrRateLimited before any sleep.
func (t *Transport) wait(ctx context.Context, d time.Duration, reason string, req *http.Request) error {
	_, maxWait, _ := t.limits()
	t.statsMu.Lock()
	if t.waited+d > maxWait {
		t.statsMu.Unlock()
		return ErrRateLimited
	}
	t.retries++
	t.waited += d
	t.statsMu.Unlock()
	left := maxWait - t.waited
	t.debug("api: %s %s: waiting %s for %s", req.Method, req.URL.Path, d, reason)
	if t.Log != nil && d >= time.Second {
		t.Log("waiting %s for %s (%s %s); %s left of max-wait", d.Round(time.Second), reason, req.Method, req.URL.Path, left.Round(time.Second))
	}
	return t.sleep(ctx, d)
}

// left is what remains of MaxWait.
func (t *Transport) left() time.Duration {
	_, maxWait, _ := t.limits()
	t.statsMu.Lock()
	defer t.statsMu.Unlock()
	return maxWait - t.waited
}
