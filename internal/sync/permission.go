package sync

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-github/v66/github"
)

// ErrPermission is a call the token is not allowed to make: the workflow's
// `permissions:` lack a scope, or the token is a fork's read-only one.
// Retrying cannot help, and every later call of the same kind would fail
// the same way, so a run stops at the first.
var ErrPermission = errors.New("the token lacks a permission")

// PermissionError is GitHub's 403 "Resource not accessible by
// integration", with the permissions GitHub says the call needs (its
// X-Accepted-GitHub-Permissions header, e.g. "issues=write;
// pull_requests=write": any one of the sets separated by ";" suffices).
type PermissionError struct {
	// Accepted are the permission sets GitHub accepts, as name=level
	// strings per set; empty when GitHub did not say.
	Accepted [][]string
	Message  string
}

func (e *PermissionError) Error() string {
	msg := fmt.Sprintf("%v (GitHub: %q)", ErrPermission, e.Message)
	if len(e.Accepted) > 0 {
		var sets []string
		for _, set := range e.Accepted {
			sets = append(sets, strings.Join(set, ", "))
		}
		msg += "; the call needs " + strings.Join(sets, " or ")
	}
	return msg
}

// Is makes errors.Is(err, ErrPermission) true.
func (e *PermissionError) Is(target error) bool { return target == ErrPermission }

// Permissions returns the `permissions:` entries (name: level) the call
// needs: GitHub's first accepted set, or nil when it did not say.
func (e *PermissionError) Permissions() map[string]string {
	if len(e.Accepted) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, p := range e.Accepted[0] {
		name, level, ok := strings.Cut(p, "=")
		if ok {
			// The header says pull_requests; the workflow key is pull-requests.
			out[strings.ReplaceAll(name, "_", "-")] = level
		}
	}
	return out
}

// PermissionsYAML renders perms as the `permissions:` block to add to the
// job, sorted.
func PermissionsYAML(perms map[string]string) string {
	names := make([]string, 0, len(perms))
	for n := range perms {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("permissions:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %s: %s\n", n, perms[n])
	}
	return b.String()
}

// permissionError recognises a 403 that is a missing permission (not a
// rate limit, not a locked issue) and parses what GitHub says is needed.
func permissionError(resp *github.Response, err error) *PermissionError {
	text := strings.ToLower(err.Error())
	if !strings.Contains(text, "not accessible by integration") && !strings.Contains(text, "permission") {
		return nil
	}
	pe := &PermissionError{Message: "Resource not accessible by integration"}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Message != "" {
		pe.Message = er.Message
	}
	if resp != nil && resp.Response != nil {
		pe.Accepted = parseAccepted(resp.Header.Get("X-Accepted-GitHub-Permissions"))
	}
	return pe
}

// parseAccepted splits "issues=write; pull_requests=write" (alternatives
// separated by ";", permissions within one by ",").
func parseAccepted(h string) [][]string {
	var out [][]string
	for _, set := range strings.Split(h, ";") {
		var perms []string
		for _, p := range strings.Split(set, ",") {
			if p = strings.TrimSpace(p); p != "" {
				perms = append(perms, p)
			}
		}
		if len(perms) > 0 {
			out = append(out, perms)
		}
	}
	return out
}
