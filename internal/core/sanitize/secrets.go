package sanitize

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Redaction marks.
const redactedPrefix = "[REDACTED:"

// Mark is the text a secret of the given kind is replaced with.
func Mark(kind string) string { return redactedPrefix + kind + "]" }

// A rule finds one kind of secret. The patterns are package-level because
// they are compiled once and never change (read-only tables, not state).
//
// Two properties keep Text idempotent, and the fuzz test checks them:
//   - no pattern ends in an assertion (\b, $ in the middle of a match), so a
//     prefix of a string matches only where the whole string already did:
//     cutting to MaxChars can never expose a new match;
//   - no pattern matches its own or another rule's mark, so a second pass
//     finds nothing new.
type rule struct {
	// hints are lower-case literals one of which every match contains: a
	// rule whose hints are all absent is skipped without running its
	// regexp, which is most rules on most text.
	hints []string
	// multiline rules run over the whole text; the others line by line,
	// which keeps each regexp run short enough for Go's backtracking
	// matcher (several times faster than its NFA on long input) and lets
	// the hints skip most lines.
	multiline bool
	re        *regexp.Regexp
	// find, when set, replaces re.FindAllStringSubmatchIndex with a
	// hand-written matcher of the same language (the fuzz test holds them
	// equal): the generic assignment pattern is case-insensitive with no
	// literal prefix, which makes it the slowest regexp here by far.
	find    func(s string) [][]int
	replace func(m string, sub []string) string
}

func whole(kind string) func(string, []string) string {
	return func(string, []string) string { return Mark(kind) }
}

// Specific token shapes run before the generic `key = value` rule, so a
// `token: ghp_...` line keeps the more telling kind, and the bearer rule
// runs before it so `Authorization: Bearer x` hides x, not just "Bearer".
// rules compile on first use, not at start-up: every agentx-hook process
// links this package, and most never sanitise anything.
var rules = sync.OnceValue(func() []rule {
	return []rule{
		{ // PEM private key blocks; an unterminated block hides the rest.
			hints:     []string{"private key-----"},
			multiline: true,
			re:        regexp.MustCompile(`(?s)-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----.*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----|\z)`),
			replace:   whole("private-key"),
		},
		{ // JSON Web Tokens: three base64url segments, the first a JSON header.
			hints:   []string{"eyj"},
			re:      regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
			replace: whole("jwt"),
		},
		{ // Anthropic (sk-ant-), OpenAI project (sk-proj-) and classic sk- keys.
			hints: []string{"sk-"},
			re:    regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`),
			replace: func(m string, _ []string) string {
				switch {
				case strings.HasPrefix(m, "sk-ant-"):
					return Mark("anthropic-key")
				default:
					return Mark("openai-key")
				}
			},
		},
		{ // GitHub fine-grained PATs and classic/app/OAuth/user/refresh tokens.
			hints:   []string{"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
			re:      regexp.MustCompile(`\b(?:github_pat_[A-Za-z0-9_]{20,}|gh[pousr]_[A-Za-z0-9]{30,})`),
			replace: whole("github-token"),
		},
		{ // AWS access key ids (long-term AKIA, temporary ASIA, and the other
			// unique-id prefixes AWS documents).
			hints:   []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa", "apka"},
			re:      regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}`),
			replace: whole("aws-access-key"),
		},
		{ // Azure storage / service bus connection strings.
			hints: []string{"accesskey", "accountkey"},
			re:    regexp.MustCompile(`(?i)\b((?:Account|SharedAccess)Key\s*=\s*)[A-Za-z0-9+/]{16,}={0,2}`),
			replace: func(_ string, sub []string) string {
				return sub[1] + Mark("azure-key")
			},
		},
		{ // Authorization: Bearer <token>
			// Prose ("Bearer authentication") is left alone: a real token has a
			// digit or is long.
			hints: []string{"bearer"},
			re:    regexp.MustCompile(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/-]{8,}=*)`),
			replace: func(m string, sub []string) string {
				if !strings.ContainsAny(sub[2], "0123456789") && len(sub[2]) < 24 {
					return m
				}
				return sub[1] + Mark("bearer")
			},
		},
		{ // password = value, "api_key": "value", GITHUB_TOKEN=value, ...
			// The key must end in the keyword ("max_tokens = 3" is not a
			// secret), and an unquoted value must not start with '[' so a mark,
			// or a mark cut short at MaxChars, is never redacted again. The
			// key's own prefix (DB_, client_) is not part of the pattern: it is
			// kept as it is, and leaving it out keeps the regexp cheap.
			hints: []string{"pass", "secret", "token", "key"},
			find:  findAssignments,
			re:    regexp.MustCompile(`(?i)((password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key)["']?\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;'"\[\]{}()<>][^\s,;'"{}()<>]*)`),
			replace: func(m string, sub []string) string {
				kind := assignmentKind(strings.ToLower(sub[2]))
				val := sub[3]
				if q := val[0]; q == '"' || q == '\'' {
					inner := val[1 : len(val)-1]
					if inner == "" || strings.HasPrefix(inner, "[") {
						return m
					}
					return sub[1] + string(q) + Mark(kind) + string(q)
				}
				return sub[1] + Mark(kind)
			},
		},
	}
})

func assignmentKind(keyword string) string {
	switch {
	case strings.HasPrefix(keyword, "pass"):
		return "password"
	case keyword == "token":
		return "token"
	case strings.Contains(keyword, "key"):
		return "api-key"
	default:
		return "secret"
	}
}

// Secrets replaces every secret it recognises with `[REDACTED:<kind>]`.
// Kinds: private-key, jwt, anthropic-key, openai-key, github-token,
// aws-access-key, azure-key, bearer, password, token, api-key, secret.
func Secrets(s string) string {
	lower := strings.ToLower(s)
	for _, r := range rules() {
		if r.multiline && containsAny(lower, r.hints) {
			if next := replaceAll(r, s); next != s {
				s, lower = next, strings.ToLower(next)
			}
		}
	}
	if !containsAnyRule(lower) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 32)
	for len(s) > 0 {
		line, rest, nl := strings.Cut(s, "\n")
		s = rest
		b.WriteString(secretsInLine(line))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func secretsInLine(line string) string {
	lower := strings.ToLower(line)
	for _, r := range rules() {
		if r.multiline || !containsAny(lower, r.hints) {
			continue
		}
		if next := replaceAll(r, line); next != line {
			line, lower = next, strings.ToLower(next)
		}
	}
	return line
}

func containsAnyRule(lower string) bool {
	for _, r := range rules() {
		if !r.multiline && containsAny(lower, r.hints) {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// replaceAll is ReplaceAllStringFunc with the submatches of each match as
// found in context (re-matching the match alone could group differently).
func replaceAll(r rule, s string) string {
	var locs [][]int
	if r.find != nil {
		locs = r.find(s)
	} else {
		locs = r.re.FindAllStringSubmatchIndex(s, -1)
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	sub := make([]string, r.re.NumSubexp()+1)
	for _, loc := range locs {
		for i := range sub {
			if loc[2*i] >= 0 {
				sub[i] = s[loc[2*i]:loc[2*i+1]]
			} else {
				sub[i] = ""
			}
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(r.replace(sub[0], sub))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// assignmentKeys are the keywords of the assignment rule, lower case.
var assignmentKeys = []string{"password", "passwd", "secret", "token",
	"api_key", "api-key", "apikey", "access_key", "access-key", "accesskey",
	"private_key", "private-key", "privatekey"}

// findAssignments matches what the assignment rule's regexp matches (for
// ASCII letters in the keyword), with its submatch indices:
// `keyword["']?\s*[:=]\s*` then a quoted value or an unquoted run.
func findAssignments(s string) [][]int {
	lower := asciiLower(s)
	var starts []int
	for _, k := range assignmentKeys {
		for i := 0; ; {
			j := strings.Index(lower[i:], k)
			if j < 0 {
				break
			}
			starts = append(starts, i+j)
			i += j + 1
		}
	}
	if len(starts) == 0 {
		return nil
	}
	sort.Ints(starts)
	var out [][]int
	last := 0
	for _, p := range starts {
		if p < last {
			continue
		}
		if m := assignmentAt(s, lower, p); m != nil {
			out = append(out, m)
			last = m[1]
		}
	}
	return out
}

func assignmentAt(s, lower string, p int) []int {
	kw := ""
	for _, k := range assignmentKeys {
		if strings.HasPrefix(lower[p:], k) {
			kw = k
			break
		}
	}
	n := len(s)
	j := p + len(kw)
	if j < n && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	j = skipSpace(s, j)
	if j >= n || (s[j] != ':' && s[j] != '=') {
		return nil
	}
	j = skipSpace(s, j+1)
	if j >= n {
		return nil
	}
	v := j
	switch c := s[j]; {
	case c == '"' || c == '\'':
		end := strings.IndexAny(s[j+1:], string(c)+"\n")
		if end < 0 || s[j+1+end] != c {
			return nil
		}
		j += end + 2
	case strings.IndexByte(" \t\n\f\r,;'\"[]{}()<>", c) >= 0:
		return nil
	default:
		for j < n && strings.IndexByte(" \t\n\f\r,;'\"{}()<>", s[j]) < 0 {
			j++
		}
	}
	return []int{p, j, p, v, p, p + len(kw), v, j}
}

func skipSpace(s string, j int) int {
	for j < len(s) && strings.IndexByte(" \t\n\f\r", s[j]) >= 0 {
		j++
	}
	return j
}

// asciiLower lower-cases ASCII letters only, so indices stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
