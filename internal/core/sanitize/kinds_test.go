package sanitize

import (
	"strings"
	"testing"
)

// TestKinds runs every row of the table: each example is redacted as its
// row says, alone and inside prose, twice over without change, and each
// near miss is left alone.
func TestKinds(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, k := range Kinds() {
		if seen[k.ID] {
			t.Errorf("kind %s twice in the table", k.ID)
		}
		seen[k.ID] = true
		if k.Gitleaks == "" || len(k.Examples) == 0 || len(k.NearMiss) == 0 && k.ID != k.Gitleaks {
			t.Errorf("kind %s needs a reference, an example and a near miss", k.ID)
		}
		t.Run(k.ID, func(t *testing.T) {
			for _, ex := range k.Examples {
				if got := Secrets(ex.In); got != ex.Want {
					t.Errorf("Secrets(%q)\n got %q\nwant %q", ex.In, got, ex.Want)
				}
				in := "Before it, " + ex.In + " and after.\nNext line."
				got := Secrets(in)
				if want := "Before it, " + ex.Want + " and after.\nNext line."; got != want {
					t.Errorf("in prose:\n got %q\nwant %q", got, want)
				}
				if again := Secrets(got); again != got {
					t.Errorf("not idempotent: %q -> %q", got, again)
				}
				if got := Text(ex.In); got != ex.Want {
					t.Errorf("Text(%q) = %q", ex.In, got)
				}
			}
			for _, nm := range k.NearMiss {
				if got := Secrets(nm); got != nm {
					t.Errorf("near miss %q changed to %q", nm, got)
				}
			}
		})
	}
}

// TestIssue15Shapes are the shapes issue 15 found in .agentx/memory, as
// they were pasted.
func TestIssue15Shapes(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"SLACK_BOT=xoxb-2468013579-1357924680-AbCdEfGhIjKlMnOpQrStUvWx",
		"posted with xoxp-2468013579-1357924680-1122334455-0123456789abcdef0123456789abcdef",
		"DATABASE_URL=postgres://admin:Sup3rS3cret@db.example.com:5432/prod",
		"clone https://bob:Tr0ub4dor@git.example.com/x.git",
		"stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc and rk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"maps key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
		"gitlab glpat-ABCDEFGHIJ1234567890",
		"//registry.npmjs.org/:_authToken=npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
		"SENDGRID 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",
		"twilio SK0123456789abcdef0123456789abcdef",
		"conn AccountKey=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8xMjM0NTY3ODkw+/AbCd==",
		"heroku_api_key: 01234567-89ab-cdef-0123-456789abcdef",
		"keys AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	} {
		got := Text(in)
		for _, secret := range []string{"xoxb-2468", "xoxp-2468", "Sup3rS3cret", "Tr0ub4dor", "4eC39Hq", "AIzaSy", "glpat-ABC",
			"npm_aB3", "SG.q7L", "SK0123", "Zm9vYmFy", "01234567-89ab", "AKIAIOSF", "wJalrXUt"} {
			if strings.Contains(got, secret) {
				t.Errorf("Text(%q) = %q keeps %s", in, got, secret)
			}
		}
	}
}

func TestPrivateTagShapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"a <private >x</private> b", "a  b"},
		{"a < PRIVATE>x</ Private > b", "a  b"},
		{"a <Private reason=\"pii\">x</private>b", "a b"},
		{"a <private\t>x b", "a "},
		{"a <privateer>x</privateer> b", "a <privateer>x</privateer> b"},
		{"a <priv <private >x</private>ate>leak", "a <priv ate>leak"},
		{"<pri<private >1</private>vate >2</private >z", "z"},
		{"a <private reason=\"" + strings.Repeat("customer data, ", 20) + "\">x</private> b", "a  b"},
	}
	for _, tt := range tests {
		got := Private(tt.in)
		if got != tt.want {
			t.Errorf("Private(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := Private(got); again != got {
			t.Errorf("not idempotent: %q -> %q", got, again)
		}
	}
}

func TestExampleSecret(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ex   Example
		want string
	}{
		{Example{"postgres://u:hunter2@h", "postgres://u:[REDACTED:url-password]@h"}, "hunter2"},
		{Example{"ghp_x", "[REDACTED:github-token]"}, "ghp_x"},
		{Example{"k=v1", "k=[REDACTED:token]"}, "v1"},
	} {
		if got := tt.ex.Secret(); got != tt.want {
			t.Errorf("%+v.Secret() = %q, want %q", tt.ex, got, tt.want)
		}
	}
}

// PrivateFrom carries a region from one text to the next.
func TestPrivateFrom(t *testing.T) {
	t.Parallel()
	out, d := PrivateFrom("keep <private>hide", 0)
	if out != "keep " || d != 1 {
		t.Fatalf("first: %q, %d", out, d)
	}
	out, d = PrivateFrom("hide too", d)
	if out != "" || d != 1 {
		t.Fatalf("middle: %q, %d", out, d)
	}
	out, d = PrivateFrom("hide</private> keep", d)
	if out != " keep" || d != 0 {
		t.Fatalf("last: %q, %d", out, d)
	}
}
