package issueref

import "testing"

func TestFromBranch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		branch string
		want   int
		ok     bool
	}{
		{"42-fix-login", 42, true}, {"feat/42-login", 42, true}, {"issue-42", 42, true},
		{"gh-42", 42, true}, {"fix/gh-7-x", 7, true}, {"issue/42", 42, true}, {"issues-9", 9, true},
		{"main", 0, false}, {"release-2024", 0, false}, {"v1.2", 0, false}, {"feat/login", 0, false},
		{"42fix", 0, false}, {"team-7/42-x", 42, true}, {"", 0, false}, {"0-zero", 0, false},
	}
	for _, tt := range tests {
		n, ok := FromBranch(tt.branch)
		if ok != tt.ok || n != tt.want {
			t.Errorf("FromBranch(%q) = %d, %v; want %d, %v", tt.branch, n, ok, tt.want, tt.ok)
		}
	}
}

func TestResolveOrder(t *testing.T) {
	t.Parallel()
	if n, ok, err := Resolve("5", "6", "7-x"); n != 5 || !ok || err != nil {
		t.Errorf("flag first: %d %v %v", n, ok, err)
	}
	if n, ok, _ := Resolve("", "6", "7-x"); n != 6 || !ok {
		t.Errorf("env second: %d", n)
	}
	if n, ok, _ := Resolve("", "", "7-x"); n != 7 || !ok {
		t.Errorf("branch last: %d", n)
	}
	if _, ok, err := Resolve("x", "", ""); ok || err == nil {
		t.Error("bad flag accepted")
	}
	if _, ok, err := Resolve("", "", "main"); ok || err != nil {
		t.Error("main named an issue")
	}
}

func TestFindReadsTheBranchOnlyWhenNeeded(t *testing.T) {
	for _, tc := range []struct {
		name, flag, env string
		want            int
		asked           bool
	}{
		{"flag", "4", "", 4, false},
		{"env", "", "5", 5, false},
		{"branch", "", "", 42, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			n, ok, err := Find(tc.flag, tc.env, func() string { asked = true; return "42-fix-login" })
			if n != tc.want || !ok || err != nil || asked != tc.asked {
				t.Errorf("Find = %d %v %v (branch read: %v)", n, ok, err, asked)
			}
		})
	}
}
