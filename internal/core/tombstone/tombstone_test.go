package tombstone

import (
	"testing"

	"github.com/agentx-dev/agentx/internal/core/jsonfile"
)

func TestUnionLatestEntryDecides(t *testing.T) {
	t.Parallel()
	rm := func(id, at string) Tombstone { return Tombstone{Kind: Observation, ID: id, Reason: "removed", At: at} }
	revive := func(id, at string) Tombstone {
		return Tombstone{Kind: Observation, ID: id, Reason: "restored", At: at, Revived: true}
	}
	tests := []struct {
		name string
		a, b Set
		dead map[string]bool
	}{
		{"a removal on either side", Set{rm("x", "1")}, nil, map[string]bool{"x": true, "y": false}},
		{"a revival after the removal wins", Set{rm("x", "1")}, Set{revive("x", "2")}, map[string]bool{"x": false}},
		{"a removal after the revival wins", Set{rm("x", "3")}, Set{revive("x", "2")}, map[string]bool{"x": true}},
		{"kinds apart", Set{{Kind: Record, ID: "x", At: "1"}}, nil, map[string]bool{"x": false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, u := range []Set{Union(tc.a, tc.b), Union(tc.b, tc.a)} {
				for id, want := range tc.dead {
					if got := u.Has(Observation, id); got != want {
						t.Errorf("Has(%s) = %v, want %v in %+v", id, got, want, u)
					}
				}
			}
		})
	}
}

func TestExtraRoundTrip(t *testing.T) {
	t.Parallel()
	extra := []jsonfile.Field{{Key: "other", Value: []byte(`1`)}}
	s := Set{{Kind: Observation, ID: "o1", Reason: "removed", At: "t"}}
	got, err := FromExtra("f", ToExtra(extra, s))
	if err != nil || len(got) != 1 || got[0].ID != "o1" {
		t.Fatalf("%+v %v", got, err)
	}
	if len(Without(ToExtra(extra, s))) != 1 {
		t.Fatal("Without kept the tombstones")
	}
	if _, err := FromExtra("f", []jsonfile.Field{{Key: Key, Value: []byte(`[{"kind":""}]`)}}); err == nil {
		t.Fatal("a tombstone without kind accepted")
	}
}
