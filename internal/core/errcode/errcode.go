// Package errcode owns the protocol's error codes: the typed error every
// core operation returns when it fails for a reason a caller (a person, an
// agent, a script) can act on. The CLI maps them to `error: CODE: message`
// and exit status 1; the Action maps them to replies on issues.
package errcode

import (
	"context"
	"errors"
	"fmt"
)

// Code is one of the protocol's error names (SPEC section 3.5 and DESIGN.md
// section 3). They are a contract with scripts: never rename one.
type Code string

const (
	ScopeViolation    Code = "SCOPE_VIOLATION"
	LockTimeout       Code = "LOCK_TIMEOUT"
	MaxRoundsExceeded Code = "MAX_ROUNDS_EXCEEDED"
	NotFound          Code = "NOT_FOUND"
	InvalidInput      Code = "INVALID_INPUT"
	AgentError        Code = "AGENT_ERROR"
	CorruptState      Code = "CORRUPT_STATE"
	// IOError is a failing disk, a denied path or a full file system: the
	// state is not corrupt, the machine needs a fix. It is not in the old
	// tools' list; they report these as CORRUPT_STATE.
	IOError Code = "IO_ERROR"
	// ChangesPending is a --check that found work to do (`setup --check`,
	// `setup --remove --check`): nothing is wrong, and the command the
	// hint names makes the changes. Ours, like IO_ERROR; it was NOT_FOUND,
	// which said something was missing when a removal was pending.
	ChangesPending Code = "CHANGES_PENDING"
	// ChecksFailed is `doctor` finding the setup broken: each failed
	// finding names the command that fixes it. Ours; it was
	// INVALID_INPUT, which blamed the command line.
	ChecksFailed Code = "CHECKS_FAILED"
)

// Error is a protocol error. Hint, when set, tells an agent what to do next.
type Error struct {
	Code    Code
	Message string
	Hint    string
	Err     error // optional cause
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// New returns a protocol error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns a protocol error carrying cause.
func Wrap(code Code, cause error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		msg = msg + ": " + cause.Error()
	}
	return &Error{Code: code, Message: msg, Err: cause}
}

// WithHint returns e with its hint set.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// CodeOf returns the protocol code carried by err, or "" when err is not a
// protocol error.
func CodeOf(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// Is reports whether err carries code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }

// ioHint is the hint of an error without a protocol code.
const ioHint = "nothing was half-written (state files are replaced atomically); fix the cause (disk space, permissions) and retry"

// Classify is the code and hint every surface reports err with (the
// CLI's `error: CODE: message` and `hint:` lines, the MCP server's tool
// errors). An error without a protocol code is a failing disk, a denied
// path or a full file system: IO_ERROR, not CORRUPT_STATE, since no file
// is damaged and the fix is on the machine; a cancelled operation is
// AGENT_ERROR.
func Classify(err error) (Code, string) {
	var pe *Error
	if errors.As(err, &pe) && pe.Code != "" {
		return pe.Code, pe.Hint
	}
	if errors.Is(err, context.Canceled) {
		return AgentError, ""
	}
	return IOError, ioHint
}

// Body is an error as a --json document carries it ("error": {code, hint,
// message}): a failure document's, or a report's that failed.
type Body struct {
	Code    string `json:"code"`
	Hint    string `json:"hint"`
	Message string `json:"message"`
}

// BodyOf is e as a document's error; nil for nil.
func BodyOf(e *Error) *Body {
	if e == nil {
		return nil
	}
	return &Body{Code: string(e.Code), Message: e.Message, Hint: e.Hint}
}
