package memory

import (
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestPrepareBatch(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		n          int
		code       errcode.Code
		msg        string
	}{
		{name: "empty array", data: `[]`},
		{name: "not JSON", data: `[{`, code: errcode.InvalidInput, msg: "memory add --file"},
		{name: "a bad record", data: `[{"agent":"engineer","issueNumber":3,"category":"nope","content":"x"}]`,
			code: errcode.InvalidInput, msg: "f.json: record [0]"},
		{name: "sanitised", data: `[{"agent":"engineer","issueNumber":3,"category":"decision","content":"keep <private>secret</private>this"}]`, n: 1},
	} {
		obs, err := PrepareBatch("memory add --file", "f.json", []byte(tc.data))
		if tc.code != "" {
			if !errcode.Is(err, tc.code) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: err = %v, want %s naming %q", tc.name, err, tc.code, tc.msg)
			}
			continue
		}
		if err != nil || len(obs) != tc.n {
			t.Fatalf("%s: %d observations, %v", tc.name, len(obs), err)
		}
		for _, o := range obs {
			if strings.Contains(o.Content, "secret") {
				t.Errorf("%s: content not sanitised: %q", tc.name, o.Content)
			}
		}
	}
}

func TestRoundScoreAndDate(t *testing.T) {
	if got := RoundScore(1.234567); got != 1.2346 {
		t.Errorf("RoundScore = %v", got)
	}
	if r := (Row{Entry: Entry{Timestamp: "2026-03-01T10:00:00.000Z"}}); r.Date() != "2026-03-01" {
		t.Errorf("Date = %q", r.Date())
	}
}

func TestByHand(t *testing.T) {
	ok := func(string) error { return nil }
	for _, tc := range []struct {
		name, issue, category, text string
		want                        error
		code                        errcode.Code
	}{
		{name: "stored", issue: "3", category: "decision", text: "Use Redis."},
		{name: "unknown category first", issue: "x", category: "nope", text: "", code: errcode.InvalidInput},
		{name: "bad issue", issue: "x", category: "decision", text: "t", code: errcode.InvalidInput},
		{name: "no text", issue: "3", category: "decision", text: "", want: ErrNoText},
	} {
		o, _, err := ByHand("", "engineer", tc.issue, tc.category, "", tc.text, ok)
		switch {
		case tc.want != nil:
			if err != tc.want { //nolint:errorlint // the sentinel itself
				t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
			}
		case tc.code != "":
			if !errcode.Is(err, tc.code) {
				t.Errorf("%s: err = %v, want %s", tc.name, err, tc.code)
			}
		case err != nil || o.IssueNumber != 3 || o.Content != tc.text:
			t.Errorf("%s: %+v, %v", tc.name, o, err)
		}
	}
}
