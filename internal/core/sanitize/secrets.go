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
	// id names the rule and is its mark's kind, unless replace picks a
	// finer one (openai-key/anthropic-key, the assignment's password,
	// token, api-key and secret).
	id string
	// gitleaks names the reference rules (config/gitleaks.toml in
	// gitleaks/gitleaks) the pattern follows.
	gitleaks string
	// examples must be redacted as shown; nearMiss must come out unchanged.
	examples []Example
	nearMiss []string
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

// table is the one list of kinds of secret the sanitiser knows: what each
// matches, what replaces it, an example it must redact and a near miss it
// must leave alone (kinds_test.go runs every row, and egress tests plant
// every example). The reference list is gitleaks' default rules
// (config/gitleaks.toml in github.com/gitleaks/gitleaks, read at commit
// 009e025ad4106ab333aa0b9dc4f2a884390d134c); each row names
// the rule ids it follows. Our patterns are looser where gitleaks relies on
// an entropy threshold or a trailing boundary we cannot use (a trailing
// assertion would break idempotence under the MaxChars cut, see rule):
// text redacted by mistake costs a word of a memory, a key kept costs the key.
//
// Order matters: specific token shapes run before the generic `key = value`
// rule, so a `token: ghp_...` line keeps the more telling kind, and the
// bearer rule runs before it so `Authorization: Bearer x` hides x, not just
// "Bearer". The bare AWS secret runs before the access key id it needs to
// see. Rules compile on first use, not at start-up: every agentx-hook
// process links this package, and most never sanitise anything.
var table = sync.OnceValue(func() []rule {
	return []rule{
		{
			id: "private-key", gitleaks: "private-key",
			// PEM private key blocks; an unterminated block hides the rest.
			hints:     []string{"private key-----"},
			multiline: true,
			re:        regexp.MustCompile(`(?s)-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----.*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----|\z)`),
			replace:   whole("private-key"),
			examples:  []Example{{"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----", "[REDACTED:private-key]"}},
			nearMiss:  []string{"-----BEGIN PUBLIC KEY-----"},
		},
		{
			id: "jwt", gitleaks: "jwt",
			// Three base64url segments, the first a JSON header.
			hints:    []string{"eyj"},
			re:       regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
			replace:  whole("jwt"),
			examples: []Example{{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6y", "[REDACTED:jwt]"}},
			nearMiss: []string{"eyJhbGciOiJIUzI1NiJ9 alone"},
		},
		{
			id: "openai-key", gitleaks: "anthropic-api-key, anthropic-admin-api-key, openai-api-key",
			// Anthropic (sk-ant-), OpenAI project (sk-proj-) and classic sk- keys.
			hints: []string{"sk-"},
			re:    regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`),
			replace: func(m string, _ []string) string {
				if strings.HasPrefix(m, "sk-ant-") {
					return Mark("anthropic-key")
				}
				return Mark("openai-key")
			},
			examples: []Example{
				{"sk-proj-4fG7hJ2kL9mN1pQ3rS5tU8vW0xY6zA2bC4dE6fG8", "[REDACTED:openai-key]"},
				{"sk-ant-api03-Xk2f9QbW7pLmN4vR8tY1zA6cD3eF5gH0jK", "[REDACTED:anthropic-key]"},
			},
			nearMiss: []string{"task-1234567890abcdefghijkl", "sk-short"},
		},
		{
			id: "github-token", gitleaks: "github-pat, github-fine-grained-pat, github-oauth, github-app-token, github-refresh-token",
			hints:    []string{"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
			re:       regexp.MustCompile(`\b(?:github_pat_[A-Za-z0-9_]{20,}|gh[pousr]_[A-Za-z0-9]{30,})`),
			replace:  whole("github-token"),
			examples: []Example{{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "[REDACTED:github-token]"}},
			nearMiss: []string{"ghp_short1234"},
		},
		{
			id: "gitlab-token", gitleaks: "gitlab-pat, gitlab-pat-routable, gitlab-deploy-token, gitlab-runner-authentication-token, gitlab-ptt, gitlab-cicd-job-token, gitlab-feed-token, gitlab-scim-token, gitlab-oauth-app-secret, gitlab-kubernetes-agent-token, gitlab-incoming-mail-token, gitlab-feature-flag-client-token",
			hints:    []string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glsoat-", "gloas-", "glagent-", "glimt-", "glffct-"},
			re:       regexp.MustCompile(`\bgl(?:pat|dt|rt|ptt|cbt|ft|soat|oas|agent|imt|ffct)-[0-9A-Za-z_.-]{20,}`),
			replace:  whole("gitlab-token"),
			examples: []Example{{"glpat-xK3nR9vQ2mW7pL4tY8zB", "[REDACTED:gitlab-token]"}},
			nearMiss: []string{"glpat-short"},
		},
		{
			id: "slack-token", gitleaks: "slack-bot-token, slack-user-token, slack-app-token, slack-legacy-token, slack-legacy-bot-token, slack-legacy-workspace-token, slack-config-access-token, slack-config-refresh-token",
			// xoxb- bot, xoxp-/xoxe- user, xoxa-/xoxr- workspace, xoxo-/xoxs-
			// legacy, xapp- app-level tokens.
			hints:    []string{"xox", "xapp-"},
			re:       regexp.MustCompile(`\b(?:xox[abposre]|xapp)-[0-9A-Za-z.-]{10,}`),
			replace:  whole("slack-token"),
			examples: []Example{{"xoxb-2468013579-1357924680-AbCdEfGhIjKlMnOpQrStUvWx", "[REDACTED:slack-token]"}},
			nearMiss: []string{"xoxb-123", "xoxo-hugs"},
		},
		{
			id: "slack-webhook", gitleaks: "slack-webhook-url",
			hints:    []string{"hooks.slack.com/"},
			re:       regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}`),
			replace:  whole("slack-webhook"),
			examples: []Example{{"https://hooks.slack.com/services/T0123ABCD/B0123ABCD/aBcDeFgHiJkLmNoPqRsTuVwX", "https://[REDACTED:slack-webhook]"}},
			nearMiss: []string{"https://hooks.slack.com/services/"},
		},
		{
			id: "stripe-key", gitleaks: "stripe-access-token",
			hints:    []string{"k_live_", "k_test_", "k_prod_"},
			re:       regexp.MustCompile(`\b[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,99}`),
			replace:  whole("stripe-key"),
			examples: []Example{{"sk_live_51HxYz2eZvKYlo2C0aBcDeFgHiJ", "[REDACTED:stripe-key]"}, {"rk_live_51HxYz2eZvKYlo2C0aBcD", "[REDACTED:stripe-key]"}},
			nearMiss: []string{"sk_live_short", "ask_live_1234567890abcdef"},
		},
		{
			id: "google-api-key", gitleaks: "gcp-api-key",
			hints:    []string{"aiza"},
			re:       regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),
			replace:  whole("google-api-key"),
			examples: []Example{{"AIzaSyD4-x9kQmZ3vR7tB2nW8pL5cY1hJ6gF0eA", "[REDACTED:google-api-key]"}},
			nearMiss: []string{"AIzaShort123"},
		},
		{
			id: "npm-token", gitleaks: "npm-access-token",
			hints:    []string{"npm_"},
			re:       regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}`),
			replace:  whole("npm-token"),
			examples: []Example{{"npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", "[REDACTED:npm-token]"}},
			nearMiss: []string{"npm_config_registry", "npm_package_version"},
		},
		{
			id: "sendgrid-key", gitleaks: "sendgrid-api-token",
			hints:    []string{"sg."},
			re:       regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{20,64}`),
			replace:  whole("sendgrid-key"),
			examples: []Example{{"SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ0123", "[REDACTED:sendgrid-key]"}},
			nearMiss: []string{"SG.short.name", "msg.reply"},
		},
		{
			id: "twilio-key", gitleaks: "twilio-api-key",
			// Twilio API key SIDs: SK and 32 hex digits.
			hints:    []string{"sk"},
			re:       regexp.MustCompile(`\bSK[0-9a-fA-F]{32}`),
			replace:  whole("twilio-key"),
			examples: []Example{{"SK0123456789abcdef0123456789abcdef", "[REDACTED:twilio-key]"}},
			nearMiss: []string{"SK0123456789abcdef", "TASK0123456789abcdef0123456789abcdef"},
		},
		{
			id: "heroku-key", gitleaks: "heroku-api-key, heroku-api-key-v2",
			// HRKU-AA keys anywhere; the older UUID keys only where a heroku
			// name is assigned them (a bare UUID is an id, not a secret).
			hints: []string{"hrku-aa", "heroku"},
			re:    regexp.MustCompile(`(?i)\b(?:(HRKU-AA[0-9A-Za-z_-]{58,})|(heroku[\w.-]{0,20}["']?\s*(?:[:=]|:=|=>)\s*["']?)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`),
			replace: func(_ string, sub []string) string {
				return sub[2] + Mark("heroku-key")
			},
			examples: []Example{
				{"HEROKU_API_KEY=01234567-89ab-cdef-0123-456789abcdef", "HEROKU_API_KEY=[REDACTED:heroku-key]"},
				{"HRKU-AAaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVw", "[REDACTED:heroku-key]"},
			},
			nearMiss: []string{"heroku app 01234567-89ab-cdef-0123-456789abcdef"},
		},
		{
			id: "aws-secret-key", gitleaks: "aws-access-token (a secret key found with its key id)",
			// A 40-character secret access key has no prefix of its own; on a
			// line that also holds an access key id (the console's CSV, a
			// pasted `aws configure`), a mixed-case 40-character run is one.
			hints:    awsKeyHints,
			find:     findAWSSecrets,
			re:       regexp.MustCompile(`[A-Za-z0-9/+]{40}`),
			replace:  whole("aws-secret-key"),
			examples: []Example{{"AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "[REDACTED:aws-access-key],[REDACTED:aws-secret-key]"}},
			nearMiss: []string{"commit 8f14e45fceea167a5a36dedd4bea2543a1b2c3d4 (no key id beside it)"},
		},
		{
			id: "aws-access-key", gitleaks: "aws-access-token",
			// Long-term AKIA, temporary ASIA, and the other unique-id prefixes
			// AWS documents.
			hints:    awsKeyHints,
			re:       awsKeyRe(),
			replace:  whole("aws-access-key"),
			examples: []Example{{"id AKIAIOSFODNN7EXAMPLE region", "id [REDACTED:aws-access-key] region"}},
			nearMiss: []string{"AKIA-not-a-key"},
		},
		{
			id: "azure-key", gitleaks: "azure-ad-client-secret (and the AccountKey= of connection strings)",
			// Storage and service bus connection strings, in a string or a
			// JSON/YAML field; and Entra ID (Azure AD) client secrets.
			hints: []string{"accesskey", "accountkey", "q~"},
			re:    regexp.MustCompile(`(?i)\b((?:Account|SharedAccess)Key["']?\s*[:=]\s*["']?)[A-Za-z0-9+/]{16,}={0,2}|(^|[\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})`),
			replace: func(_ string, sub []string) string {
				return sub[1] + sub[2] + Mark("azure-key")
			},
			examples: []Example{
				{"AccountName=x;AccountKey=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0==;EndpointSuffix=core.windows.net", "AccountName=x;AccountKey=[REDACTED:azure-key];EndpointSuffix=core.windows.net"},
				{`"AccountKey": "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0=="`, `"AccountKey": "[REDACTED:azure-key]"`},
				{"secret abc8Q~aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456", "secret [REDACTED:azure-key]"},
			},
			nearMiss: []string{"AccountKey=short"},
		},
		{
			id: "url-password", gitleaks: "none by default (sidekiq-sensitive-url is the one service-specific case); generalised to every scheme",
			// The password of user:password@ in a URL (postgres://, https://,
			// amqp://, ...). The user and host are kept: they say which
			// service is meant. A password starting with '[' is a mark.
			hints: []string{"://"},
			re:    regexp.MustCompile(`(\b[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/?#@\[\]]*:)([^\s/?#\[][^\s/?#]*)@`),
			replace: func(_ string, sub []string) string {
				return sub[1] + Mark("url-password") + "@"
			},
			examples: []Example{
				{"postgres://app:hunter2@db.internal:5432/app", "postgres://app:[REDACTED:url-password]@db.internal:5432/app"},
				{"https://user:p@ss@example.com/x", "https://user:[REDACTED:url-password]@example.com/x"},
			},
			nearMiss: []string{"https://example.com:8443/path?q=a@b", "git@github.com:org/repo.git"},
		},
		{
			id: "bearer", gitleaks: "curl-auth-header",
			// Authorization: Bearer <token>. Prose ("Bearer authentication")
			// is left alone: a real token has a digit or is long.
			hints: []string{"bearer"},
			re:    regexp.MustCompile(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/-]{8,}=*)`),
			replace: func(m string, sub []string) string {
				if !strings.ContainsAny(sub[2], "0123456789") && len(sub[2]) < 24 {
					return m
				}
				return sub[1] + Mark("bearer")
			},
			examples: []Example{{"Authorization: Bearer abc123def456ghi789", "Authorization: Bearer [REDACTED:bearer]"}},
			nearMiss: []string{"Bearer authentication is used"},
		},
		{
			id: "assignment", gitleaks: "generic-api-key",
			// password = value, "api_key": "value", GITHUB_TOKEN=value, ...
			// The key must end in the keyword ("max_tokens = 3" is not a
			// secret), and an unquoted value must not start with '[' so a
			// mark, or a mark cut short at MaxChars, is never redacted again.
			// The key's own prefix (DB_, client_) is not part of the pattern:
			// it is kept as it is, and leaving it out keeps the regexp cheap.
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
			examples: []Example{
				{"db_password: s3cr3t!", "db_password: [REDACTED:password]"},
				{"GITHUB_TOKEN=abcdef123456", "GITHUB_TOKEN=[REDACTED:token]"},
				{"api_key='xyz987'", "api_key='[REDACTED:api-key]'"},
				{`{"client_secret": "abc def"}`, `{"client_secret": "[REDACTED:secret]"}`},
			},
			nearMiss: []string{"max_tokens = 20000", "the tokens are counted"},
		},
	}
})

// rules is the table (the name the matching code uses).
func rules() []rule { return table() }

var (
	awsKeyHints = []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa", "apka"}
	awsKeyRe    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}`)
	})
)

// findAWSSecrets finds, on a line that holds an AWS access key id, the
// 40-character runs of base64 that mix upper case, lower case and digits
// (a git object id is lower-case hex and stays).
func findAWSSecrets(line string) [][]int {
	if !awsKeyRe().MatchString(line) {
		return nil
	}
	var out [][]int
	for i := 0; i < len(line); {
		if !isB64(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && isB64(line[j]) {
			j++
		}
		// Runs of exactly 40: a longer run is some other blob.
		if j-i == 40 && mixedCase(line[i:j]) {
			out = append(out, []int{i, j})
		}
		i = j
	}
	return out
}

func isB64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '/' || c == '+'
}

func mixedCase(s string) bool {
	var up, low, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		dig = dig || c >= '0' && c <= '9'
	}
	return up && low && dig
}

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

// Example is a text a kind must redact, and what it becomes.
type Example struct{ In, Want string }

// Secret is the part of In that the redaction removes: what no egress may
// keep.
func (e Example) Secret() string {
	pre, suf := 0, 0
	for pre < len(e.In) && pre < len(e.Want) && e.In[pre] == e.Want[pre] {
		pre++
	}
	for suf < len(e.In)-pre && suf < len(e.Want)-pre && e.In[len(e.In)-1-suf] == e.Want[len(e.Want)-1-suf] {
		suf++
	}
	return e.In[pre : len(e.In)-suf]
}

// Kind describes one row of the table of secrets, for tests of every
// egress: plant each example, and check that no file keeps its secret.
type Kind struct {
	ID       string
	Gitleaks string
	Examples []Example
	NearMiss []string
}

// Kinds lists the table of secrets the sanitiser redacts, in the order it
// applies them.
func Kinds() []Kind {
	out := make([]Kind, 0, len(table()))
	for _, r := range table() {
		out = append(out, Kind{ID: r.id, Gitleaks: r.gitleaks, Examples: r.examples, NearMiss: r.nearMiss})
	}
	return out
}

// Secrets replaces every secret it recognises with `[REDACTED:<kind>]`
// (or, where the name of a field or the user of a URL says what the
// secret was for, just its value). The kinds are the rows of the table.
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
