package sanitize

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// The rules where context matters: what the value of a `name = value`
// looks like, and which command a flag belongs to. gitleaks' generic rule
// looks for an entropy above 3.5, which lets `DB_PASS=letmein` through and
// a long identifier in; these read the shape of the code instead.

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

// typeWords are values that name a type or a constant, not a secret
// (`password: string`, `token = None`).
var typeWords = map[string]bool{"string": true, "str": true, "int": true, "bool": true, "boolean": true,
	"number": true, "bytes": true, "byte": true, "[]byte": true, "any": true, "unknown": true, "none": true,
	"null": true, "nil": true, "undefined": true, "true": true, "false": true, "object": true,
	"optional": true, "required": true, "text": true, "char": true, "varchar": true, "secretstr": true,
	"string[]": true, "str,": true, "void": true, "redacted": true, "hidden": true}

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
		if typeWords[strings.ToLower(strings.TrimSuffix(inner, "?"))] {
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

// cliExamples are the command lines the cli-password rule must redact.
var cliExamples = []Example{
	{"docker login -p Zx9vQ2mW7pL4 registry.example.com", "docker login -p [REDACTED:cli-password] registry.example.com"},
	{"sshpass -p 'n0t-a-real-pw' ssh deploy@host", "sshpass -p '[REDACTED:cli-password]' ssh deploy@host"},
	{"psql --password=Tr0ub4dor3 -h db", "psql --password=[REDACTED:cli-password] -h db"},
	{"vault login --token s9Kd83hfQ2", "vault login --token [REDACTED:cli-password]"},
	{"mysql -u root -pS3cretPw1 app", "mysql -u root -p[REDACTED:cli-password] app"},
	{"curl -u admin:S3cr3t!x https://x.example.com", "curl -u admin:[REDACTED:cli-password] https://x.example.com"},
}

// loginCommands take a password after -p.
var loginCommands = []string{"sshpass", "docker login", "podman login", "buildah login", "skopeo login",
	"nerdctl login", "oras login", "helm registry login", "helm repo add"}

// flagSuffixes end the long options whose value is a secret.
var flagSuffixes = []string{"password", "passwd", "pass", "token", "secret", "api-key", "apikey", "access-key",
	"secret-key", "private-key", "auth-key"}

// findCLISecrets finds the secrets given on a command line.
func findCLISecrets(line string) [][]int {
	lower := asciiLower(line)
	var out [][]int
	out = append(out, longFlagSecrets(line, lower)...)
	login := containsAny(lower, loginCommands)
	mysql := strings.Contains(lower, "mysql")
	curl := strings.Contains(lower, "curl") || strings.Contains(lower, "wget")
	for i := 0; i+2 < len(line); i++ {
		if line[i] != '-' || i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
			continue
		}
		switch {
		case line[i+1] == 'p' && login && (line[i+2] == ' ' || line[i+2] == '='):
			out = appendValue(out, line, skipBlank(line, i+3))
		case line[i+1] == 'p' && mysql && line[i+2] != ' ' && line[i+2] != '-':
			out = appendValue(out, line, i+2)
		case line[i+1] == 'u' && curl && (line[i+2] == ' ' || line[i+2] == '='):
			out = appendUserPassword(out, line, skipBlank(line, i+3))
		}
	}
	return sortSpans(out)
}

func longFlagSecrets(line, lower string) [][]int {
	var out [][]int
	for i := 0; ; {
		j := strings.Index(lower[i:], "--")
		if j < 0 {
			return out
		}
		i += j + 2
		if i-3 >= 0 && line[i-3] != ' ' && line[i-3] != '\t' && line[i-3] != '"' && line[i-3] != '\'' {
			continue
		}
		k := i
		for k < len(lower) && (lower[k] >= 'a' && lower[k] <= 'z' || lower[k] >= '0' && lower[k] <= '9' || lower[k] == '-') {
			k++
		}
		name := lower[i:k]
		if k >= len(line) || (line[k] != '=' && line[k] != ' ') || !hasSuffixAny(name, flagSuffixes) {
			continue
		}
		if name == "user" {
			continue
		}
		out = appendValue(out, line, skipBlank(line, k+1))
	}
}

func hasSuffixAny(s string, sufs []string) bool {
	for _, x := range sufs {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// appendValue adds the span of the argument at j, unless it is another
// option, a reference or a mark.
func appendValue(out [][]int, line string, j int) [][]int {
	if j >= len(line) || line[j] == '-' {
		return out
	}
	v, e, _ := value(line, j)
	if v < 0 || e <= v || codeShaped(line[v:e]) || !plausibleSecret(line[v:e]) && !strings.ContainsAny(line[v:e], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return out
	}
	return append(out, []int{v, e})
}

// appendUserPassword adds the password of the user:password at j.
func appendUserPassword(out [][]int, line string, j int) [][]int {
	v, e, _ := value(line, j)
	if v < 0 {
		return out
	}
	c := strings.IndexByte(line[v:e], ':')
	if c <= 0 || v+c+1 >= e || line[v+c+1] == '[' || codeShaped(line[v+c+1:e]) {
		return out
	}
	return append(out, []int{v + c + 1, e})
}

// sortSpans orders spans and drops any that overlap an earlier one.
func sortSpans(spans [][]int) [][]int {
	for i := 1; i < len(spans); i++ {
		for k := i; k > 0 && spans[k][0] < spans[k-1][0]; k-- {
			spans[k], spans[k-1] = spans[k-1], spans[k]
		}
	}
	out := spans[:0]
	end := -1
	for _, s := range spans {
		if s[0] >= end {
			out = append(out, s)
			end = s[1]
		}
	}
	return out
}

// findDevOpsTokens finds, on a line that names Azure DevOps, the runs of
// exactly 52 lower-case base32 characters with a digit (its personal
// access tokens).
func findDevOpsTokens(line string) [][]int {
	var out [][]int
	for i := 0; i < len(line); {
		if !isBase32(line[i]) {
			i++
			continue
		}
		j := i
		digit := false
		for j < len(line) && isBase32(line[j]) {
			digit = digit || line[j] >= '2' && line[j] <= '7'
			j++
		}
		if j-i == 52 && digit && (i == 0 || !isKeyChar(line[i-1])) && (j == len(line) || !isKeyChar(line[j])) {
			out = append(out, []int{i, j})
		}
		i = j
	}
	return out
}

func isBase32(c byte) bool { return c >= 'a' && c <= 'z' || c >= '2' && c <= '7' }
