package memory

import (
	"os"
	"testing"
)

func FuzzParseIssueFile(f *testing.F) {
	seed, _ := os.ReadFile("testdata/old/issue-29.json")
	f.Add(seed)
	f.Add([]byte(`{"version":1,"issueNumber":3,"observations":null}`))
	f.Add([]byte(`{"observations":[{"id":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseIssueFile("issue-1.json", data)
		if err != nil {
			return
		}
		out, err := file.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseIssueFile("issue-1.json", out)
		if err != nil || len(again.Observations) != len(file.Observations) {
			t.Fatalf("round trip: %v\n%s", err, out)
		}
	})
}

func FuzzParseManifest(f *testing.F) {
	seed, _ := os.ReadFile("testdata/old/manifest.json")
	f.Add(seed)
	f.Add([]byte(`{"version":1,"entries":[],"agentxIndex":"g1-c00000000"}`))
	f.Add([]byte(`{"entries":[{"id":"x","tokens":1.5}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		readStamp(data, int64(len(data)), true)
		m, err := ParseManifest("manifest.json", data)
		if err != nil {
			return
		}
		for _, l := range []rowLayout{referenceRows, compactRows} {
			out, refs, _ := renderManifest(m, 1, l)
			again, err := ParseManifest("manifest.json", out)
			if err != nil || len(again.Entries) != len(m.Entries) {
				t.Fatalf("round trip (%+v): %v\n%s", l, err, out)
			}
			if _, _, ok := readStamp(out, int64(len(out)), true); !ok {
				t.Fatalf("own stamp does not verify (%+v):\n%s", l, out)
			}
			// Every row the index would point at decodes to its entry, and
			// sits as its layout lays rows out.
			for i, r := range refs {
				e, err := entryAt(out, r)
				if err != nil || e.ID != m.Entries[i].ID || e.Summary != m.Entries[i].Summary || len(e.Extra) != len(m.Entries[i].Extra) {
					t.Fatalf("row %d (%+v): %v %+v", i, l, err, e)
				}
				if !l.laidOut(out, int(r.Off)) {
					t.Fatalf("row %d (%+v) not laid out as its layout says", i, l)
				}
			}
		}
	})
}
