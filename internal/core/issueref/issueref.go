// Package issueref owns how a command finds the issue it works on when none
// is given: $AGENTX_ISSUE, else the number in the current branch name.
package issueref

import (
	"strings"

	"github.com/agentx-dev/agentx/internal/core/errcode"
	"github.com/agentx-dev/agentx/internal/core/validate"
)

// FromBranch extracts an issue number from a branch name: `42-fix-login`,
// `feat/42-login`, `issue-42`, `issue/42`, `gh-42`, `fix/gh-42-x`. The
// number must start a path segment (optionally after `issue-`, `issues-`,
// `gh-` or `#`) so that `release-2024` or `v1.2` give nothing.
func FromBranch(branch string) (int, bool) {
	segs := strings.Split(branch, "/")
	// Prefer the last segment: `feat/42-x` names 42, `team-7/42-x` names 42.
	for i := len(segs) - 1; i >= 0; i-- {
		s := strings.ToLower(segs[i])
		for _, p := range []string{"issues-", "issue-", "issue", "gh-", "#"} {
			if rest, ok := strings.CutPrefix(s, p); ok && rest != "" && isDigit(rest[0]) {
				s = rest
				break
			}
		}
		if s == "" || !isDigit(s[0]) {
			continue
		}
		end := 0
		for end < len(s) && isDigit(s[end]) {
			end++
		}
		if end < len(s) && s[end] != '-' && s[end] != '_' {
			continue
		}
		if n, err := validate.Issue(s[:end]); err == nil {
			return n, true
		}
	}
	return 0, false
}

// Find is Resolve with the branch name read only when the flag and the
// environment are both empty (branch runs git).
func Find(flag, env string, branch func() string) (int, bool, error) {
	b := ""
	if flag == "" && env == "" {
		b = branch()
	}
	return Resolve(flag, env, b)
}

// Resolve returns the issue from flag, else env ($AGENTX_ISSUE), else branch.
// ok is false when none names one; err is set when one is given but invalid.
func Resolve(flag, env, branch string) (n int, ok bool, err error) {
	if flag != "" {
		n, err = validate.Issue(flag)
		return n, err == nil, err
	}
	if env != "" {
		// Named: the command line holds no such number to look for.
		if n, err = validate.Issue(env); err != nil {
			return 0, false, errcode.New(errcode.InvalidInput, "$AGENTX_ISSUE: %v", err)
		}
		return n, true, nil
	}
	if n, ok := FromBranch(branch); ok {
		return n, true, nil
	}
	return 0, false, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
