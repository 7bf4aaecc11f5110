package githooks

import (
	"strings"
	"testing"
)

func TestStatusLines(t *testing.T) {
	hooks := []HookStatus{{Hook: "post-commit", State: "missing"}}
	for _, tc := range []struct {
		name  string
		loc   Location
		md    *MergeDriverStatus
		first string
		n     int
	}{
		{"git's directory", Location{Dir: "/r/.git/hooks"}, nil, "Hooks directory: /r/.git/hooks", 2},
		{"core.hooksPath", Location{Dir: "/r/.husky", HooksPath: ".husky"}, nil, "Hooks directory: /r/.husky (core.hooksPath = .husky)", 2},
		{"merge driver", Location{Dir: "/d"}, &MergeDriverStatus{}, "Hooks directory: /d", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := StatusLines(tc.loc, hooks, tc.md)
			if len(lines) != tc.n || lines[0] != tc.first || !strings.HasPrefix(lines[1], "  post-commit  ") {
				t.Errorf("StatusLines = %q", lines)
			}
			if tc.md != nil && !strings.HasPrefix(lines[2], "  merge-driver ") {
				t.Errorf("merge driver line = %q", lines[2])
			}
			if c := ChangeLines(tc.loc, nil, tc.md); c[0] != "Hooks directory: "+tc.loc.Dir || len(c) != tc.n-1 {
				t.Errorf("ChangeLines = %q", c)
			}
		})
	}
}

func TestAuditEntry(t *testing.T) {
	e := AuditEntry("install", "/r/.git/hooks", []Step{{Hook: "post-commit", Kind: Managed}})
	if e.Op != "hooks.install" || e.Detail != "/r/.git/hooks" || len(e.IDs) != 1 || e.IDs[0] != "post-commit:"+string(Managed) {
		t.Errorf("AuditEntry = %+v", e)
	}
}
