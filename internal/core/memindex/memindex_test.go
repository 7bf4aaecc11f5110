package memindex

import (
	"reflect"
	"testing"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
	}{
		{"Chose per-issue JSON files", []string{"chos", "per", "issu", "json", "fil"}},
		{"json vs jsonl", []string{"json", "vs", "jsonl"}},
		{"Issue 42 and 4", []string{"issu", "42", "4"}},
		{"locks locking locked lock", []string{"lock"}},
		{"cache caches cached caching", []string{"cach"}},
		{"the of and", nil},
		{"ENOENT: manifest.json", []string{"enoent", "manifest", "json"}},
		{"Größe Ünïcode", []string{"größe", "ünïcode"}},
		{"mapped map", []string{"map"}},
	}
	for _, c := range cases {
		if got := Terms(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func build(docs []Doc, texts []string, st Stamp) *Index {
	b := NewBuilder()
	for i := range docs {
		b.Add(docs[i], texts[i])
	}
	ix, err := Decode(b.Encode(st), true)
	if err != nil {
		panic(err)
	}
	return ix
}

func TestSearchRanksFiltersAndBreaksTiesByRecency(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		{Issue: 42, Time: 1000, Agent: "engineer", Category: "decision"},
		{Issue: 4, Time: 2000, Agent: "architect", Category: "error"},
		{Issue: 42, Time: 3000, Agent: "engineer", Category: "error"},
		{Issue: 7, Time: 500, Agent: "reviewer", Category: "key-fact"},
	}
	texts := []string{"redis session store timeout", "redis cluster", "redis cluster", "lockout after five failed logins"}
	ix := build(docs, texts, Stamp{Generation: 3, CRC: 9, Size: 100})
	if ix.Stamp() != (Stamp{Generation: 3, CRC: 9, Size: 100}) || ix.Len() != 4 {
		t.Fatalf("stamp %+v len %d", ix.Stamp(), ix.Len())
	}
	ids := func(q Query) []int {
		hits, err := ix.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, h := range hits {
			out = append(out, h.Doc)
		}
		return out
	}
	// Equal scores: newer first.
	if got := ids(Query{Text: "cluster"}); !reflect.DeepEqual(got, []int{2, 1}) {
		t.Errorf("tie by recency: %v", got)
	}
	// OR semantics, the document matching more terms first.
	if got := ids(Query{Text: "session timeout cluster"}); got[0] != 0 || len(got) != 3 {
		t.Errorf("OR ranking: %v", got)
	}
	if got := ids(Query{Text: "redis", Issue: 42, Category: "error"}); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("filters: %v", got)
	}
	if got := ids(Query{Text: "redis", Agent: "ARCHITECT"}); !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("agent filter is case-insensitive: %v", got)
	}
	if got := ids(Query{Text: "redis", Since: 1500, Until: 2500}); !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("date range: %v", got)
	}
	if got := ids(Query{Agent: "engineer"}); !reflect.DeepEqual(got, []int{2, 0}) {
		t.Errorf("filter-only listing newest first: %v", got)
	}
	if got := ids(Query{Text: "4"}); len(got) != 0 {
		t.Errorf("`4` must not match issue 4 or 42 metadata: %v", got)
	}
	if got := ids(Query{Text: "the of and"}); len(got) != 0 {
		t.Errorf("a query of stop words matches nothing: %v", got)
	}
	if got := ids(Query{Text: "redis", Limit: 1}); len(got) != 1 {
		t.Errorf("limit: %v", got)
	}
}

// Appending to an index copied whole, and dropping documents, give the
// same results as building from scratch.
func TestBuilderFromIndex(t *testing.T) {
	t.Parallel()
	docs := []Doc{{Issue: 1, Time: 1, Agent: "a", Category: "decision"}, {Issue: 2, Time: 2, Agent: "b", Category: "error"}}
	ix := build(docs, []string{"alpha beta", "beta gamma"}, Stamp{})
	b, err := ix.Builder(nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Add(Doc{Issue: 3, Time: 3, Agent: "a", Category: "key-fact"}, "gamma delta beta")
	ix2, err := Decode(b.Encode(Stamp{Generation: 1}), true)
	if err != nil {
		t.Fatal(err)
	}
	hits, _ := ix2.Search(Query{Text: "delta"})
	if len(hits) != 1 || hits[0].Doc != 2 {
		t.Fatalf("after append: %+v", hits)
	}
	b, err = ix2.Builder(func(d int) bool { return d != 1 })
	if err != nil {
		t.Fatal(err)
	}
	ix3, err := Decode(b.Encode(Stamp{}), true)
	if err != nil {
		t.Fatal(err)
	}
	hits, _ = ix3.Search(Query{Text: "gamma"})
	if len(hits) != 1 || ix3.Doc(hits[0].Doc).Issue != 3 {
		t.Fatalf("after drop: %+v", hits)
	}
}

func FuzzDecode(f *testing.F) {
	ix := build([]Doc{{Issue: 1, Time: 5, Agent: "a", Category: "c"}}, []string{"hello world"}, Stamp{})
	f.Add(ix.data)
	f.Add([]byte("AXMIDX01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := Decode(data, false)
		if err != nil {
			return
		}
		// A structurally valid but damaged index must never panic.
		_, _ = ix.Search(Query{Text: "hello world"})
		_, _ = ix.Search(Query{Agent: "a"})
		for d := 0; d < ix.Len(); d++ {
			ix.Doc(d)
		}
	})
}

func BenchmarkTokenize(b *testing.B) {
	text := "Decided to move the authentication middleware behind Redis to keep latency under 100 ms; ECONNREFUSED when the session store was down."
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		Tokenize(text, func(string) {})
	}
}
