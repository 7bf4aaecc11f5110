package buildinfo

import (
	"encoding/json"
	"testing"
)

func TestDocRoundTrip(t *testing.T) {
	me := Info{Version: "v1.2.3", Commit: "abc", Dirty: true, GoVersion: "go1.x"}
	for _, tc := range []struct {
		name  string
		other Info
		same  bool
	}{
		{"same build", me, true},
		{"other commit", Info{Version: "v1.2.3", Commit: "def", Dirty: true}, false},
		{"clean tree", Info{Version: "v1.2.3", Commit: "abc"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.other.Doc())
			var d Doc
			if err == nil {
				err = json.Unmarshal(data, &d)
			}
			if err != nil || d.Info().SameBuild(me) != tc.same {
				t.Errorf("%s: %v, same %v", data, err, d.Info().SameBuild(me))
			}
		})
	}
}
