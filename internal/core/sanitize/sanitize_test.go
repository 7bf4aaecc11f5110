package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Real-looking secrets of every kind the sanitiser knows. None is live:
// the AWS one is AWS's documentation example, the rest are random.
const (
	jwt        = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	anthropic  = "sk-ant-api03-Xk2f9QbW7pLmN4vR8tY1zA6cD3eF5gH0jK9sT2uV4wXabcdEFGHq7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7QAA"
	openai     = "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"
	openaiOld  = "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"
	githubPAT  = "github_pat_11ABCDEFG0_q7Lm2Np4Rs6Tu8Vw0Xy3Zb5Cd7Ef9Gh1Jk3Lm5Np7Qr9St1Uv3Wx5Yz7Ab9C0d2E4f6G8H0"
	ghp        = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	ghs        = "ghs_9f8e7d6c5b4a3210FEDCBA9876543210abcd"
	gho        = "gho_16C7e42F292c6912E7710c838347Ae178B4a"
	awsKey     = "AKIAIOSFODNN7EXAMPLE"
	awsTemp    = "ASIAY34FZKBOKMUTVV7A"
	azureConn  = "DefaultEndpointsProtocol=https;AccountName=agentxstore;AccountKey=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8xMjM0NTY3ODkw+/AbCd==;EndpointSuffix=core.windows.net"
	privateKey = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naFDrBz9vFqU4yV4sW8M1vZ0aQxQ2eK1jN0cU5FZz3g==\n-----END RSA PRIVATE KEY-----"
)

func TestSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"jwt", "token is " + jwt + " ok", "token is [REDACTED:jwt] ok"},
		{"anthropic", "export KEY=" + anthropic, "export KEY=[REDACTED:anthropic-api-key]"},
		{"openai project", "use " + openai + " here", "use [REDACTED:openai-api-key] here"},
		{"openai classic", "key " + openaiOld + " here", "key [REDACTED:openai-api-key] here"},
		{"github fine-grained", "pat " + githubPAT, "pat [REDACTED:github-fine-grained-pat]"},
		{"github classic", "GH " + ghp + ".", "GH [REDACTED:github-pat]."},
		{"github app", ghs, "[REDACTED:github-app-token]"},
		{"github oauth", "x " + gho, "x [REDACTED:github-oauth]"},
		{"aws", "id " + awsKey + " region", "id [REDACTED:aws-access-key] region"},
		{"aws temporary", awsTemp, "[REDACTED:aws-access-token]"},
		{"azure", azureConn, "DefaultEndpointsProtocol=https;AccountName=agentxstore;AccountKey=[REDACTED:azure-key];EndpointSuffix=core.windows.net"},
		{"private key", "key:\n" + privateKey + "\nafter", "key:\n[REDACTED:private-key]\nafter"},
		{"private key unterminated", "before " + privateKey[:60], "before [REDACTED:private-key]"},
		{"bearer", "Authorization: Bearer abc123def456ghi789", "Authorization: Bearer [REDACTED:bearer]"},
		{"bearer prose", "Bearer authentication is used", "Bearer authentication is used"},
		{"password", "password = hunter2hunter2", "password = [REDACTED:password]"},
		{"password colon", "db_password: s3cr3t!", "db_password: [REDACTED:password]"},
		{"json secret", `{"client_secret": "abc def"}`, `{"client_secret": "[REDACTED:secret]"}`},
		{"env token", "GITHUB_TOKEN=abcdef123456", "GITHUB_TOKEN=[REDACTED:token]"},
		{"api_key", "api_key='xyz987'", "api_key='[REDACTED:api-key]'"},
		{"token wins over bearer kind", "Authorization: Bearer " + ghp, "Authorization: Bearer [REDACTED:github-pat]"},
		{"not a secret: max_tokens", "max_tokens = 20000", "max_tokens = 20000"},
		{"not a secret: tokens prose", "the tokens are counted", "the tokens are counted"},
		{"not a secret: email", "mail a@b.com", "mail a@b.com"},
		{"not a secret: short sk", "sk-short", "sk-short"},
		{"mark untouched", "password = [REDACTED:password]", "password = [REDACTED:password]"},
		{"empty quoted", `password=""`, `password=""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Secrets(tt.in)
			if got != tt.want {
				t.Errorf("Secrets(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Secrets(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestPrivate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"none", "plain text", "plain text"},
		{"simple", "a <private>secret</private> b", "a  b"},
		{"case", "a <PRIVATE>x</Private> b", "a  b"},
		{"unclosed hides rest", "keep <private>hide all\nof this", "keep "},
		{"nested", "a<private>1<private>2</private>3</private>b", "ab"},
		{"nested unclosed", "a<private>1<private>2</private>3", "a"},
		{"stray close", "a</private>b", "ab"},
		{"two regions", "<private>x</private>a<private>y</private>b", "ab"},
		{"joined by removal", "<priv<private>x</private>ate>leak", ""},
		{"joined by stray close", "<priv</private>ate>leak</private>tail", "tail"},
		{"deep join", "<pr<priv<private>1</private>ate>2</private>ivate>z", ""},
		{"partial tags", "<private <privat> </privat", "<private <privat> </privat"},
		{"multibyte", "é<private>ü</private>ß", "éß"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Private(tt.in)
			if got != tt.want {
				t.Errorf("Private(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Private(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", MaxChars+10)
	got := Text(long)
	if n := utf8.RuneCountInString(got); n != MaxChars {
		t.Fatalf("runes = %d, want %d", n, MaxChars)
	}
	if !utf8.ValidString(got) {
		t.Fatal("cut inside a character")
	}
}

func TestTextOrder(t *testing.T) {
	t.Parallel()
	// A secret straddling the cut is redacted, never half-kept.
	in := strings.Repeat("x", MaxChars-5) + " " + ghp
	got := Text(in)
	if strings.Contains(got, "ghp_") {
		t.Fatalf("half a token survived: %q", got[len(got)-20:])
	}
	// Private runs over the whole text first: a secret inside a private
	// region leaves no mark.
	if got := Text("a <private>" + awsKey + "</private> b"); got != "a  b" {
		t.Fatalf("got %q", got)
	}
}

func TestMentions(t *testing.T) {
	t.Parallel()
	z := ZeroWidthSpace
	tests := []struct{ in, want string }{
		{"ping @octocat please", "ping @" + z + "octocat please"},
		{"@team-lead first", "@" + z + "team-lead first"},
		{"team @github/security", "team @" + z + "github/security"},
		{"mail me@example.com", "mail me@example.com"},
		{"code `@Override` stays", "code `@Override` stays"},
		{"```\n@decorator\n```\n@alice", "```\n@decorator\n```\n@" + z + "alice"},
		{"(@bob) and @carol.", "(@" + z + "bob) and @" + z + "carol."},
		{"no at", "no at"},
	}
	for _, tt := range tests {
		got := Mentions(tt.in)
		if got != tt.want {
			t.Errorf("Mentions(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := Mentions(got); again != got {
			t.Errorf("not idempotent: %q", got)
		}
	}
}

// secretSeeds are every secret shape above, for the fuzz corpus and the
// survival check.
var secretSeeds = []string{jwt, anthropic, openai, openaiOld, githubPAT, ghp, ghs, gho, awsKey, awsTemp, azureConn, privateKey,
	"Bearer abc123def456ghi789", "password = hunter2hunter2", "token: abc123"}

func FuzzText(f *testing.F) {
	for _, s := range secretSeeds {
		f.Add(s)
		f.Add("<private>" + s)
		f.Add(strings.Repeat("y", MaxChars-7) + s)
	}
	f.Add("<priv<private>x</private>ate>leak")
	f.Add("password = [REDACTED:password]")
	f.Add("token=[REDAC")
	f.Fuzz(func(t *testing.T, in string) {
		out := Text(in)
		if utf8.RuneCountInString(out) > MaxChars {
			t.Fatalf("longer than %d runes", MaxChars)
		}
		if again := Text(out); again != out {
			t.Fatalf("not idempotent:\n once  %q\n twice %q", out, again)
		}
		if Secrets(out) != out {
			t.Fatalf("a secret pattern survives in %q", out)
		}
		if hasTag(out) {
			t.Fatalf("a private tag survives in %q", out)
		}
		if m := Mentions(out); Mentions(m) != m {
			t.Fatalf("Mentions not idempotent on %q", out)
		}
	})
}

// BenchmarkText sanitises a typical observation: a few lines, one with a
// password assignment and a token, 2,000 characters in all.
func BenchmarkText(b *testing.B) {
	line := "We decided to store observations per issue; password = hunter2 and " + ghp + " appear.\n"
	in := strings.Repeat(line, MaxChars/len(line)+1)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Text(in)
	}
}

// BenchmarkTextLongLine is the worst shape: one 4.6 KB line full of
// candidates, where Go's regexp falls back from backtracking to its NFA.
func BenchmarkTextLongLine(b *testing.B) {
	in := strings.Repeat("We decided to store observations per issue; password = hunter2 and "+ghp+" appear. ", 40)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Text(in)
	}
}
