package sanitize

import (
	"regexp"
	"strings"
	"sync"

	"github.com/agentx-dev/agentx/internal/core/lazy"
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
	// stage 0 runs before gitleaks' rules, 1 between its specific rules
	// and its generic one (see table).
	stage int
	re    *lazyRegexp
	// find, when set, replaces re.FindAllStringSubmatchIndex: a
	// hand-written matcher that reads context a regexp cannot (what the
	// value of an assignment looks like, which command a flag belongs to).
	find    func(s string) [][]int
	replace func(m string, sub []string) string
}

func whole(kind string) func(string, []string) string {
	return func(string, []string) string { return Mark(kind) }
}

// table is our own rules: the kinds gitleaks' default rules (gitleaks.go,
// generated from its config at GitleaksVersion) leave to context. Each row
// has an example it must redact and a near miss it must leave alone
// (kinds_test.go runs every row; the egress tests plant every example).
//
// Stage 0 runs before gitleaks' rules: a PEM block hides what is inside it
// (and an unterminated one the rest), and the bare AWS secret needs to see
// its key id before gitleaks marks it. Stage 1 runs after the specific
// gitleaks rules and before gitleaks' generic rule, so a token keeps its
// service's kind and an assignment keeps ours. Rules compile on first use,
// not at start-up: every agentx-hook process links this package, and most
// never sanitise anything.
var table = lazy.Value[[]rule]{New: newTable}

func newTable() []rule {
	return []rule{
		{
			id: "private-key", gitleaks: "private-key (ours also hides an unterminated block)",
			hints:     []string{"private key"},
			multiline: true,
			re:        lazyRe(`(?s)-----BEGIN[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z)`),
			replace:   whole("private-key"),
			examples: []Example{
				{"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----", "[REDACTED:private-key]"},
				{"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGVxK3sBCADQ7m9f2pYkZx1\n-----END PGP PRIVATE KEY BLOCK-----", "[REDACTED:private-key]"},
			},
			nearMiss: []string{"-----BEGIN PUBLIC KEY-----"},
		},
		{
			id: "putty-private-key", gitleaks: "none (private-key is PEM only)",
			// A PuTTY .ppk file (issue 32: its Private-Lines were stored):
			// from its header to its Private-MAC, or to the end when cut.
			// The public lines go too: a block is one thing.
			hints:     []string{"putty-user-key-file-"},
			multiline: true,
			re:        lazyRe(`(?s)PuTTY-User-Key-File-[0-9]+:.*?(?:Private-MAC:[ \t]*[0-9A-Fa-f]+|\z)`),
			replace:   whole("putty-private-key"),
			examples: []Example{
				{"key:\nPuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20240101\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIOq7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7\nPrivate-Lines: 1\nAAAAIFhq7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7Qr9St\nPrivate-MAC: 6c2f4e1a9b3d7f0c5e8a2b6d9f1c4e7a0b3d6f9c2e5a8b1d4f7a0c3e6b9d2f5a\ndone",
					"key:\n[REDACTED:putty-private-key]\ndone"},
			},
			nearMiss: []string{"convert the .ppk with puttygen (PuTTY-User-Key-File format)"},
		},
		{
			id: "aws-secret-key", gitleaks: "aws-access-token (a secret key found with its key id)",
			// A 40-character secret access key has no prefix of its own; on a
			// line that also holds an access key id (the console's CSV, a
			// pasted `aws configure`), a mixed-case 40-character run is one.
			hints:    awsKeyHints,
			find:     findAWSSecrets,
			replace:  whole("aws-secret-key"),
			examples: []Example{{"AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "[REDACTED:aws-access-key],[REDACTED:aws-secret-key]"}},
			nearMiss: []string{"commit 8f14e45fceea167a5a36dedd4bea2543a1b2c3d4 (no key id beside it)"},
		},
		{
			id: "discord-webhook", gitleaks: "none (discord-api-token covers bot tokens)", stage: 1,
			hints:    []string{"/api/webhooks/"},
			re:       lazyRe(`(discord(?:app)?\.com/api/webhooks/[0-9]{5,25}/)[A-Za-z0-9_-]{40,100}`),
			replace:  func(_ string, sub []string) string { return sub[1] + Mark("discord-webhook") },
			examples: []Example{{"https://discord.com/api/webhooks/1234567890123456789/Xk2f9QbW7pLmN4vR8tY1zA6cD3eF5gH0jK9sT2uV4wXabcdEFGHq7Lm2Np4Rs6Tu8", "https://discord.com/api/webhooks/1234567890123456789/[REDACTED:discord-webhook]"}},
			nearMiss: []string{"https://discord.com/api/webhooks/{id}/{token}"},
		},
		{
			id: "telegram-bot-token", gitleaks: "telegram-bot-api-token (ours without a telegram name beside it)", stage: 1,
			hints:    []string{":aa"},
			re:       lazyRe(`\b[0-9]{6,12}:AA[A-Za-z0-9_-]{30,}`),
			replace:  whole("telegram-bot-token"),
			examples: []Example{{"bot 5729364810:AAq7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3", "bot [REDACTED:telegram-bot-token]"}},
			nearMiss: []string{"12:30:AA meeting"},
		},
		{
			id: "stripe-webhook-secret", gitleaks: "none (stripe-access-token covers keys)", stage: 1,
			hints:    []string{"whsec_"},
			re:       lazyRe(`\bwhsec_[A-Za-z0-9+/]{24,}`),
			replace:  whole("stripe-webhook-secret"),
			examples: []Example{{"whsec_q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1J", "[REDACTED:stripe-webhook-secret]"}},
			nearMiss: []string{"whsec_..."},
		},
		{
			id: "google-oauth-secret", gitleaks: "none (gcp-api-key covers API keys)", stage: 1,
			hints:    []string{"gocspx-"},
			re:       lazyRe(`\bGOCSPX-[A-Za-z0-9_-]{20,}`),
			replace:  whole("google-oauth-secret"),
			examples: []Example{{"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", "[REDACTED:google-oauth-secret]"}},
			nearMiss: []string{"GOCSPX-xxx"},
		},
		{
			id: "google-access-token", gitleaks: "none", stage: 1,
			hints:    []string{"ya29."},
			re:       lazyRe(`\bya29\.[0-9A-Za-z_-]{20,}`),
			replace:  whole("google-access-token"),
			examples: []Example{{"ya29.a0AfB_q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7Qr9St1Uv3", "[REDACTED:google-access-token]"}},
			nearMiss: []string{"ya29.short"},
		},
		{
			id: "azure-sas", gitleaks: "none (the sig= of a shared access signature)", stage: 1,
			hints:    []string{"sig="},
			re:       lazyRe(`([?&;]sig=)[A-Za-z0-9%+/=]{20,}`),
			replace:  func(_ string, sub []string) string { return sub[1] + Mark("azure-sas") },
			examples: []Example{{"https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-01-01&sr=b&sp=r&sig=q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk%3D", "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-01-01&sr=b&sp=r&sig=[REDACTED:azure-sas]"}},
			nearMiss: []string{"?sig=short"},
		},
		{
			id: "azure-devops-token", gitleaks: "none (a personal access token beside an Azure DevOps name)", stage: 1,
			hints:    []string{"azure", "devops", "ado_", "_pat", "visualstudio"},
			find:     findDevOpsTokens,
			replace:  whole("azure-devops-token"),
			examples: []Example{{"AZURE_DEVOPS_EXT_PAT ptgz6jfebzsdoxrlgqnbqrmktsxfvyplp6rftastm23s34kotqcf", "AZURE_DEVOPS_EXT_PAT [REDACTED:azure-devops-token]"}},
			nearMiss: []string{"azure devops project alphabetagammadeltaepsilonzetaetathetaiotakappalambda"},
		},
		{
			id: "aws-access-key", gitleaks: "aws-access-token (ours keeps AWS's documentation examples out too)", stage: 1,
			hints:    awsKeyHints,
			re:       &lazyRegexp{get: awsKeyRe.Get},
			replace:  whole("aws-access-key"),
			examples: []Example{{"id AKIAIOSFODNN7EXAMPLE region", "id [REDACTED:aws-access-key] region"}},
			nearMiss: []string{"AKIA-not-a-key"},
		},
		{
			id: "azure-key", gitleaks: "none (the AccountKey= of connection strings)", stage: 1,
			hints: []string{"accesskey", "accountkey"},
			re:    lazyRe(`(?i)\b((?:Account|SharedAccess)Key["']?\s*[:=]\s*["']?)[A-Za-z0-9+/]{16,}={0,2}`),
			replace: func(_ string, sub []string) string {
				return sub[1] + Mark("azure-key")
			},
			examples: []Example{
				{"AccountName=x;AccountKey=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0==;EndpointSuffix=core.windows.net", "AccountName=x;AccountKey=[REDACTED:azure-key];EndpointSuffix=core.windows.net"},
				{`"AccountKey": "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0=="`, `"AccountKey": "[REDACTED:azure-key]"`},
			},
			nearMiss: []string{"AccountKey=${STORAGE_KEY}"},
		},
		{
			id: "url-password", gitleaks: "none by default (sidekiq-sensitive-url is the one service-specific case); generalised to every scheme", stage: 1,
			// The password of user:password@ in a URL (postgres://, https://,
			// amqp://, ...). The user and host are kept: they say which
			// service is meant. A password starting with '[' is a mark.
			hints: []string{"://"},
			// A '#' belongs to the password (issue 32: `p#ss` was kept):
			// before the host, no fragment can start.
			re: lazyRe(`(\b[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/?#@\[\]]*:)([^\s/?\[][^\s/?]*)@`),
			replace: func(m string, sub []string) string {
				if codeShaped(sub[2]) {
					return m
				}
				return sub[1] + Mark("url-password") + "@"
			},
			examples: []Example{
				{"postgres://app:hunter2@db.internal:5432/app", "postgres://app:[REDACTED:url-password]@db.internal:5432/app"},
				{"https://user:p@ss@example.com/x", "https://user:[REDACTED:url-password]@example.com/x"},
				{"postgres://app:hun#ter2@db.internal/app", "postgres://app:[REDACTED:url-password]@db.internal/app"},
				{"redis://:#secret@cache:6379", "redis://:[REDACTED:url-password]@cache:6379"},
			},
			nearMiss: []string{"https://example.com:8443/path?q=a@b", "git@github.com:org/repo.git", "postgres://app:${DB_PASS}@db/app"},
		},
		{
			id: "bearer", gitleaks: "curl-auth-header (ours outside curl too)", stage: 1,
			// Authorization: Bearer <token>. Prose ("Bearer authentication")
			// is left alone: a real token has a digit or is long.
			hints: []string{"bearer"},
			re:    lazyRe(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/-]{8,}=*)`),
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
			id: "basic-auth", gitleaks: "curl-auth-header (ours outside curl too)", stage: 1,
			// Authorization: Basic <base64 of user:password>. Prose ("basic
			// authentication") is left alone: the credential must decode to
			// user:password or sit in an Authorization header.
			hints: []string{"basic"},
			re:    lazyRe(`(?i)\b(basic\s+)([A-Za-z0-9+/]{6,}={0,2})`),
			replace: func(m string, sub []string) string {
				if !basicCredential(sub[2]) {
					return m
				}
				return sub[1] + Mark("basic-auth")
			},
			examples: []Example{{"-H 'Authorization: Basic YWRtaW46czNjcjN0UGFzcw=='", "-H 'Authorization: Basic [REDACTED:basic-auth]'"}},
			nearMiss: []string{"Basic authentication is enabled", "basic usage"},
		},
		{
			id: "cli-password", gitleaks: "none (curl-auth-user covers curl -u)", stage: 1,
			// A password or token given on a command line: --password X,
			// --token=X, docker login -p X, sshpass -p X, mysql -pX, curl -u
			// user:X.
			hints:    []string{"--", "-p", "-u"},
			find:     findCLISecrets,
			replace:  whole("cli-password"),
			examples: cliExamples,
			nearMiss: []string{"docker login --password-stdin", "ls -p /tmp", "mysql -p", "--password $DB_PASS", "grep -u x"},
		},
		{
			id: "assignment", gitleaks: "generic-api-key (ours names the kind and reads code)", stage: 1,
			// password = value, "api_key": "value", GITHUB_TOKEN=value,
			// password := "x", 'password' => 'x', SECRET_KEY=x, DB_PASS=x,
			// MYSQL_PWD=x, Pwd=x; but not password: string, password ==,
			// ${{ secrets.X }}, os.Getenv("X") (findAssignments).
			hints:   assignmentHints,
			find:    findAssignments,
			replace: assignmentReplace,
			examples: []Example{
				{"db_password: s3cr3t!", "db_password: [REDACTED:password]"},
				{"GITHUB_TOKEN=abcdef123456", "GITHUB_TOKEN=[REDACTED:token]"},
				{"api_key='xyz987'", "api_key='[REDACTED:api-key]'"},
				{`{"client_secret": "abc def"}`, `{"client_secret": "[REDACTED:secret]"}`},
			},
			nearMiss: []string{"max_tokens = 20000", "the tokens are counted", "password: string", "if password == other {",
				"token: ${{ secrets.GITHUB_TOKEN }}", `password = os.Getenv("DB_PASSWORD")`},
		},
	}
}

// lazyRegexp compiles its expression on first use: a text reaches a
// rule's expression only when it holds one of the rule's hints, so a
// clarification without any (most) compiles none of the table's 13
// (0.3 ms of `clarify request`'s 8).
type lazyRegexp struct{ get func() *regexp.Regexp }

func lazyRe(expr string) *lazyRegexp {
	return &lazyRegexp{get: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// rules is the table (the name the matching code uses).
func rules() []rule { return table.Get() }

var (
	awsKeyHints = []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa", "apka"}
	awsKeyRe    = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}`)
	}}
)

// findAWSSecrets finds, on a line that holds an AWS access key id, the
// 40-character runs of base64 that mix upper case, lower case and digits
// (a git object id is lower-case hex and stays).
func findAWSSecrets(line string) [][]int {
	if !awsKeyRe.Get().MatchString(line) {
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

// Kinds lists our own table of secrets, in the order it applies them,
// then examples of the gitleaks rules issue 26 found missing.
func Kinds() []Kind {
	out := make([]Kind, 0, len(table.Get())+len(gitleaksKinds))
	for _, r := range table.Get() {
		out = append(out, Kind{ID: r.id, Gitleaks: r.gitleaks, Examples: r.examples, NearMiss: r.nearMiss})
	}
	return append(out, gitleaksKinds...)
}

// Secrets replaces every secret it recognises with `[REDACTED:<kind>]`
// (or, where the name of a field or the user of a URL says what the
// secret was for, just its value): our stage-0 rules, gitleaks' specific
// rules, our stage-1 rules (assignments, command lines, URLs), then
// gitleaks' generic rule. A text that holds none of the rules' keywords
// costs a few substring searches and compiles nothing.
func Secrets(s string) string {
	s = ourRules(s, 0)
	s = gitleaksSecrets(s, false)
	s = ourRules(s, 1)
	return gitleaksSecrets(s, true)
}

func ourRules(s string, stage int) string { return ourRulesOf(rules(), s, stage) }

func ourRulesOf(rs []rule, s string, stage int) string {
	lower := strings.ToLower(s)
	for _, r := range rs {
		if r.stage == stage && r.multiline && containsAny(lower, r.hints) {
			if next := replaceAll(r, s); next != s {
				s, lower = next, strings.ToLower(next)
			}
		}
	}
	if !containsAnyRule(rs, lower, stage) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 32)
	for len(s) > 0 {
		line, rest, nl := strings.Cut(s, "\n")
		s = rest
		b.WriteString(secretsInLine(rs, line, stage))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func secretsInLine(rs []rule, line string, stage int) string {
	lower := strings.ToLower(line)
	for _, r := range rs {
		if r.stage != stage || r.multiline || !containsAny(lower, r.hints) {
			continue
		}
		if next := replaceAll(r, line); next != line {
			line, lower = next, strings.ToLower(next)
		}
	}
	return line
}

func containsAnyRule(rs []rule, lower string, stage int) bool {
	for _, r := range rs {
		if r.stage == stage && !r.multiline && containsAny(lower, r.hints) {
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
		locs = r.re.get().FindAllStringSubmatchIndex(s, -1)
	}
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, loc := range locs {
		sub := make([]string, len(loc)/2)
		for i := range sub {
			if loc[2*i] >= 0 {
				sub[i] = s[loc[2*i]:loc[2*i+1]]
			}
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(r.replace(sub[0], sub))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
