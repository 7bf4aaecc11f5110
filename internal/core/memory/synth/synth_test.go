package synth

import (
	"reflect"
	"regexp"
	"testing"
	"time"
)

func TestObservationsAreDeterministicAndWellFormed(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	a, b := Observations(300, 12, 5, end), Observations(300, 12, 5, end)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different corpus")
	}
	id := regexp.MustCompile(`^obs-[a-z0-9]{1,20}-[0-9]+-[0-9]+-[a-z0-9]{6}$`)
	seen := map[string]bool{}
	for _, o := range a {
		if !id.MatchString(o.ID) || seen[o.ID] {
			t.Fatalf("bad or duplicate id %q", o.ID)
		}
		seen[o.ID] = true
		if o.IssueNumber < 1 || o.IssueNumber > 12 || !o.Category.Known() || o.Content == "" || o.Tokens == 0 {
			t.Fatalf("bad observation %+v", o)
		}
		if regexp.MustCompile(`%[a-z!]`).MatchString(o.Content) {
			t.Fatalf("unfilled template: %q", o.Content)
		}
	}
}
