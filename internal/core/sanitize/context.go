package sanitize

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// The rules where context matters: what the value of a `name = value`
// looks like (here), and which command a flag belongs to (cliflags.go).
// gitleaks' generic rule looks for an entropy above 3.5, which lets
// `DB_PASS=letmein` through and a long identifier in; these read the
// shape of the code instead.

// assignmentHints are lower-case literals one of which every key the
// assignment rule matches holds.
var assignmentHints = []string{"pass", "pwd", "secret", "token", "key", "cred"}

// assignmentKeywords are the words a key must end in, lower case; each
// must start a word of the key (`DB_PASS`, `dbPass`, not `bypass`).
var assignmentKeywords = []string{"password", "passwd", "passphrase", "pass", "pwd", "secret", "token",
	"credentials", "credential", "creds", "key"}

// keyPrefixes may run into "key" or "token" without a break (`apikey`,
// `accesstoken`).
var keyPrefixes = []string{"api", "access", "private", "secret", "auth", "encryption", "signing", "master",
	"session", "refresh", "client", "bot"}

// typeWord reports whether w is a value that names a type or a constant,
// not a secret (`password: string`, `token = None`). A switch, not a map
// literal: a map is built at every process start.
func typeWord(w string) bool {
	switch w {
	case "string", "str", "int", "bool", "boolean",
		"number", "bytes", "byte", "[]byte", "any", "unknown", "none",
		"null", "nil", "undefined", "true", "false", "object",
		"optional", "required", "text", "char", "varchar", "secretstr",
		"string[]", "str,", "void", "redacted", "hidden":
		return true
	}
	return false
}

// codePrefixes start values that refer to a secret kept elsewhere.
var codePrefixes = []string{"$", "%", "{{", "<", "#{", "process.env", "os.environ", "os.getenv", "env.",
	"secrets.", "vars.", "config.", "settings.", "self.", "this.", "props.", "params.", "req.", "request.",
	"input.", "options.", "opts.", "args.", "getenv", "system.getenv"}

// findAssignments finds the values of `key = value` shapes whose key ends
// in a keyword: `key["']?]?\s*(=|:|:=|=>)\s*value`. Each result is the
// value's span (without its quotes) and the key's span (which names the
// kind).
func findAssignments(s string) [][]int {
	lower := asciiLower(s)
	var out [][]int
	last := 0
	// next[i] is where keyword i next ends a key at or after the scan (-1:
	// nowhere): each keyword's occurrences are read once, so the scan is
	// linear however many there are.
	next := make([]int, len(assignmentKeywords))
	for i, k := range assignmentKeywords {
		next[i] = keywordEnding(lower, k, 0)
	}
	for {
		best := -1
		for i, at := range next {
			if at >= 0 && (best < 0 || at < next[best]) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		at, kw := next[best], assignmentKeywords[best]
		next[best] = keywordEnding(lower, kw, at+1)
		if at < last || !keywordStarts(s, lower, at, kw) {
			continue
		}
		if m := assignmentAt(s, at, kw); m != nil {
			out = append(out, m)
			last = m[1]
		}
	}
}

// keywordEnding is the first occurrence of k at or after p that ends a
// key (is followed by no character of a key), -1 when none.
func keywordEnding(lower, k string, p int) int {
	for p <= len(lower) {
		j := strings.Index(lower[p:], k)
		if j < 0 {
			return -1
		}
		at := p + j
		if end := at + len(k); end >= len(lower) || !isKeyChar(lower[end]) {
			return at
		}
		p = at + 1
	}
	return -1
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// keywordStarts reports whether the keyword at starts a word of its key:
// after a separator, at a lower-to-upper case change, or (for key and
// token) right after one of keyPrefixes.
func keywordStarts(s, lower string, at int, kw string) bool {
	if at == 0 || !isLetter(s[at-1]) && !(s[at-1] >= '0' && s[at-1] <= '9') {
		return true
	}
	if s[at] >= 'A' && s[at] <= 'Z' && (s[at-1] >= 'a' && s[at-1] <= 'z' || s[at-1] >= '0' && s[at-1] <= '9') {
		return true
	}
	if kw == "key" || kw == "token" || kw == "secret" {
		for _, p := range keyPrefixes {
			if strings.HasSuffix(lower[:at], p) {
				return true
			}
		}
	}
	return false
}

// assignmentAt parses the operator and the value after the keyword at.
func assignmentAt(s string, at int, kw string) []int {
	n := len(s)
	j := at + len(kw)
	if j < n && (s[j] == '"' || s[j] == '\'' || s[j] == '`') {
		j++
	}
	if j < n && s[j] == ']' {
		j++
	}
	j = skipBlank(s, j)
	op, ok := operator(s, j)
	if !ok {
		return nil
	}
	j = skipBlank(s, j+len(op))
	for range 2 {
		v, e, next := value(s, j)
		if v < 0 {
			return nil
		}
		inner := s[v:e]
		if typeWord(strings.ToLower(strings.TrimSuffix(inner, "?"))) {
			// `password: str = "x"`: the type, then perhaps the value.
			k := skipBlank(s, next)
			if k < n && s[k] == '=' && (k+1 >= n || s[k+1] != '=') {
				j = skipBlank(s, k+1)
				continue
			}
			return nil
		}
		if codeShaped(inner) || next < n && s[next] == '(' || refersToKey(inner, kw) {
			return nil
		}
		if !secretFamily(kw) && !plausibleSecret(inner) {
			return nil
		}
		if e == next && (op == ":" || op == "=") && secretFamily(kw) && (kw == "passphrase" || keyStartsLine(s, at)) {
			// YAML or INI: an unquoted value runs to the end of the line.
			e = lineValueEnd(s, v)
		}
		return []int{v, e, keyStart(s, at), at + len(kw)}
	}
	return nil
}

func operator(s string, j int) (string, bool) {
	if j >= len(s) {
		return "", false
	}
	rest := s[j:]
	switch {
	case strings.HasPrefix(rest, ":="), strings.HasPrefix(rest, "=>"):
		return rest[:2], true
	case strings.HasPrefix(rest, "=="), strings.HasPrefix(rest, "=~"), strings.HasPrefix(rest, "::"):
		return "", false
	case rest[0] == '=' || rest[0] == ':':
		return rest[:1], true
	}
	return "", false
}

// value is the value starting at j: its span without quotes and where it
// ends, quotes included (v < 0 when there is none).
func value(s string, j int) (v, e, next int) {
	n := len(s)
	if j >= n {
		return -1, 0, 0
	}
	switch c := s[j]; {
	case c == '"' || c == '\'' || c == '`':
		k := j + 1
		for k < n && s[k] != c && s[k] != '\n' {
			if s[k] == '\\' {
				k++
			}
			k++
		}
		if k >= n || s[k] != c || k == j+1 || s[j+1] == '[' {
			return -1, 0, 0
		}
		return j + 1, k, k + 1
	case strings.IndexByte(" \t\n\f\r,;'\"`[]{}()<>", c) >= 0:
		return -1, 0, 0
	}
	k := j
	for k < n && strings.IndexByte(" \t\n\f\r,;'\"`{}()<>", s[k]) < 0 {
		k++
	}
	return j, k, k
}

// plausibleSecret: a key or token has a digit or a sign and some length;
// a word (`key: keep`, `token = await`, `primary_key = "id"`) is not one.
func plausibleSecret(v string) bool {
	if len(v) < 6 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isLetter(v[i]) {
			return true
		}
	}
	return len(v) >= 20 && mixedCase(v+"0")
}

// codeShaped reports whether a value refers to a secret rather than being
// one: a variable, a template, an environment lookup, a placeholder.
func codeShaped(v string) bool {
	lower := strings.ToLower(v)
	for _, p := range codePrefixes {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	if strings.ContainsRune(v, '(') {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(v); strings.Trim(v, string(r)) == "" {
		return true // xxxx, ****
	}
	return dottedIdentifier(v)
}

// dottedIdentifier: a.b.c of letters and underscores, no digits.
func dottedIdentifier(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !isLetter(p[i]) && p[i] != '_' {
				return false
			}
		}
	}
	return true
}

// refersToKey: an unquoted identifier that names the keyword itself is a
// variable (`password = newPassword`, `token = access_token`).
func refersToKey(v, kw string) bool {
	for i := 0; i < len(v); i++ {
		if !isLetter(v[i]) && v[i] != '_' && !(i > 0 && v[i] >= '0' && v[i] <= '9') {
			return false
		}
	}
	return strings.Contains(strings.ToLower(v), kw)
}

func secretFamily(kw string) bool {
	switch kw {
	case "password", "passwd", "passphrase", "pass", "pwd", "secret":
		return true
	}
	return false
}

// keyStartsLine: only blanks, a list dash or a quote come before the key
// on its line.
func keyStartsLine(s string, at int) bool {
	for i := keyStart(s, at) - 1; i >= 0 && s[i] != '\n'; i-- {
		if strings.IndexByte(" \t-\"'", s[i]) < 0 {
			return false
		}
	}
	return true
}

func keyStart(s string, at int) int {
	for at > 0 && (isKeyChar(s[at-1]) || s[at-1] == '.') {
		at--
	}
	return at
}

// lineValueEnd is the end of a value that runs to the end of its line,
// less a trailing comment and blanks.
func lineValueEnd(s string, v int) int {
	e := len(s)
	if i := strings.IndexByte(s[v:], '\n'); i >= 0 {
		e = v + i
	}
	if i := strings.Index(s[v:e], " #"); i >= 0 {
		e = v + i
	}
	for e > v && (s[e-1] == ' ' || s[e-1] == '\t' || s[e-1] == '\r') {
		e--
	}
	return e
}

func skipBlank(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
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

// assignmentReplace marks the value by what its key says it is.
func assignmentReplace(_ string, sub []string) string {
	return Mark(assignmentKind(strings.ToLower(sub[1])))
}

func assignmentKind(key string) string {
	switch {
	case strings.Contains(key, "pass"), strings.HasSuffix(key, "pwd"):
		return "password"
	case strings.HasSuffix(key, "token"):
		return "token"
	case strings.HasSuffix(key, "cred"), strings.HasSuffix(key, "creds"), strings.Contains(key, "credential"):
		return "credentials"
	case strings.HasSuffix(key, "key") && strings.Contains(key, "api"):
		return "api-key"
	case strings.HasSuffix(key, "key"):
		return "key"
	default:
		return "secret"
	}
}

// basicCredential reports whether the word after "Basic" is a credential:
// base64 of user:password, or long and mixed like one.
func basicCredential(tok string) bool {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(tok); err == nil && utf8.Valid(b) && strings.IndexByte(string(b), ':') > 0 {
			return true
		}
	}
	return len(tok) >= 20 && mixedCase(tok)
}
