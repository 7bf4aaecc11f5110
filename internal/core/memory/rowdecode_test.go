package memory

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// rowSamples are rows as the stores hold them, and the shapes the fast
// decoder leaves to the general one.
var rowSamples = []string{
	`{
      "id": "obs-architect-1-1765056273930-2fdaf0",
      "agent": "architect",
      "issueNumber": 1,
      "category": "decision",
      "content": "Chose rate limiter over a hand-written solution. Follow-up for issue #1: reset email within 200 ms",
      "summary": "Chose rate limiter over a hand-written solution",
      "tokens": 49,
      "timestamp": "2025-12-06T21:24:33.930Z",
      "sessionId": "architect-1765056273930-742f4f",
      "agentxHash": "sha256:52d2e3f359d94a8e60eaa4525e11f5d627a49749a875a6274922f9b128d9b96e"
    },
    {"id": "next"}`,
	`{"id":"a","agent":"b","issueNumber":-0,"category":"error","summary":"s","tokens":0,"timestamp":"t","content":"line\none \"q\" \\ \/ \u263a","recallCount":3}`,
	`{"id":"é","summary":"naïve — ünïcödé","content":"日本語のテキスト","tokens":12}`,
	`{"summary":"\t"}`,
	`{"summary":null,"tokens":1.0,"issueNumber":1e2}`,
	`{"x":{"nested":[1,2,{"a":"}"}]},"id":"z"}`,
	`{"id":"a","id":"b","tokens":7,"tokens":8}`,
	`{"tokens":"7"}`,
	`{"summary":7}`,
	`{"tokens":007}`,
	`{"tokens":123456789012345678901}`,
	`{"a\u0062":"x","id":"y"}`,
	`{}`,
	` { } `,
	`{"id":"a",}`,
	`{"id":"a"`,
	`{"id":"a\x"}`,
	"{\"id\":\"a\xff\xfe\"}",
	`{"ok":true,"no":false,"nil":null}`,
	`[1]`,
	``,
}

// checkFastRow holds fastRow to the general decoder on b: when it
// decodes, the general decoder decodes the same object (found where
// objectEnd finds it) to the same Entry.
// The strings offered for sharing (the index's agent and category) are
// the sample rows' and others: the result is the same either way.
func checkFastRow(t *testing.T, b []byte) bool {
	t.Helper()
	ok := checkFastRowWith(t, b, "architect", "decision")
	if checkFastRowWith(t, b, "", "error") != ok {
		t.Fatalf("fastRow(%q) decodes or not by the strings offered", b)
	}
	return ok
}

func checkFastRowWith(t *testing.T, b []byte, agent, category string) bool {
	t.Helper()
	e, end, ok := fastRow(b, agent, category)
	if !ok {
		return false
	}
	if oe := objectEnd(b); oe != end {
		t.Fatalf("fastRow(%q) ends at %d, objectEnd at %d", b, end, oe)
	}
	want, err := decodeRow(b[:end])
	if err != nil {
		t.Fatalf("fastRow(%q) decoded %+v, decodeRow fails: %v", b, e, err)
	}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("fastRow(%q) = %+v, decodeRow %+v", b, e, want)
	}
	return true
}

// The fast decoder agrees with the general one on the samples, every
// prefix of them, and random mutations made of the bytes that matter;
// and it does decode the plain rows (else it would save nothing).
func TestFastRowMatchesDecodeRow(t *testing.T) {
	t.Parallel()
	for i, s := range rowSamples {
		for k := 0; k <= len(s); k++ {
			checkFastRow(t, []byte(s[:k]))
		}
		if ok := checkFastRow(t, []byte(s)); ok != (i <= 2 || i == 6 || i == 12 || i == 13) {
			t.Errorf("fastRow(%q): ok %v", s, ok)
		}
	}
	r := rand.New(rand.NewPCG(35, 7))
	alphabet := []byte("\"\\{}[],: \n\t0123456789-.eEaunlx\x01\x7f\xc3\xa9\xff")
	decoded := 0
	for range 100_000 {
		b := []byte(rowSamples[r.IntN(4)])
		for range 1 + r.IntN(3) {
			p := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b[p] = alphabet[r.IntN(len(alphabet))]
			case 1:
				b = append(b[:p], b[p+1:]...)
			default:
				b = append(b[:p], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[p:]...)...)
			}
		}
		if checkFastRow(t, b) {
			decoded++
		}
	}
	if decoded == 0 {
		t.Fatal("no mutated row decoded by fastRow: the comparison tested nothing")
	}
}

func FuzzFastRow(f *testing.F) {
	for _, s := range rowSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkFastRow(t, b) })
}
