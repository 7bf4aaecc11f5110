package sanitize

import (
	"regexp"
	"testing"
)

// TestTableCompilesLazily: a text with none of the table's hints (a
// usual clarification) compiles none of its expressions (all 13 were
// compiled on the first call: 0.3 ms of `clarify request`'s 8), one
// with a hint only its rule's, and every expression compiles.
func TestTableCompilesLazily(t *testing.T) {
	t.Parallel()
	var compiled []string
	rs := newTable() // fresh: other tests' use does not count
	for i := range rs {
		if r := &rs[i]; r.re != nil {
			get, id := r.re.get, r.id
			r.re = &lazyRegexp{get: func() *regexp.Regexp { compiled = append(compiled, id); return get() }}
		}
	}
	run := func(s string) string {
		return ourRulesOf(rs, ourRulesOf(rs, s, 0), 1)
	}
	run("Which cache, the one in front of the store? Keep it simple.\nSecond line.")
	if len(compiled) != 0 {
		t.Errorf("a question with no hint compiled %v", compiled)
	}
	if got := run("curl -H 'Authorization: Bearer abcdef123456789'"); got != "curl -H 'Authorization: Bearer [REDACTED:bearer]'" {
		t.Errorf("bearer: %q", got)
	}
	for _, id := range compiled {
		if id != "bearer" {
			t.Errorf("a bearer token compiled %v", compiled)
			break
		}
	}
	for _, r := range rs {
		if r.re != nil && r.re.get() == nil {
			t.Errorf("rule %s: no expression", r.id)
		}
	}
}
