package githooks

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the shim copies under hooks/ at the repository root")

const foreign = "#!/bin/sh\necho user hook\n"

// olderShim is a shim of another version: ours by its marker.
const olderShim = "#!/bin/sh\n# agentx-hook managed\nexec agentx-hook git-hook post-commit \"$@\"\n"

func snap(files map[string]string) *Snapshot {
	s := &Snapshot{Dir: "/repo/.git/hooks", Files: map[string][]byte{}}
	for k, v := range files {
		s.Files[k] = []byte(v)
	}
	return s
}

// kinds summarises a plan as hook=kind for comparison.
func kinds(steps []Step) map[string]Kind {
	m := map[string]Kind{}
	for _, s := range steps {
		m[s.Hook] = s.Kind
	}
	return m
}

func TestPlanInstall(t *testing.T) {
	t.Parallel()
	current := Shim("post-commit")
	tests := []struct {
		name      string
		files     map[string]string
		hooksPath string
		tracked   []string
		force     bool
		want      map[string]Kind
		ops       []Op // the post-commit step's operations
	}{
		{name: "fresh repo", want: map[string]Kind{"post-commit": Create, "pre-push": Create, "post-merge": Create},
			ops: []Op{{Op: "write", To: "post-commit"}}},
		{name: "foreign hook present", files: map[string]string{"post-commit": foreign},
			want: map[string]Kind{"post-commit": Chain, "pre-push": Create, "post-merge": Create},
			ops:  []Op{{Op: "rename", From: "post-commit", To: "post-commit.agentx-chained"}, {Op: "write", To: "post-commit"}}},
		{name: "our older shim", files: map[string]string{"post-commit": olderShim},
			want: map[string]Kind{"post-commit": Replace, "pre-push": Create, "post-merge": Create},
			ops:  []Op{{Op: "write", To: "post-commit"}}},
		{name: "our current shim", files: map[string]string{"post-commit": current},
			want: map[string]Kind{"post-commit": Keep, "pre-push": Create, "post-merge": Create}, ops: []Op{}},
		{name: "our current shim, forced", files: map[string]string{"post-commit": current}, force: true,
			want: map[string]Kind{"post-commit": Replace, "pre-push": Create, "post-merge": Create},
			ops:  []Op{{Op: "write", To: "post-commit"}}},
		{name: "already chained, shim intact", files: map[string]string{"post-commit": current, "post-commit.agentx-chained": foreign},
			want: map[string]Kind{"post-commit": Keep, "pre-push": Create, "post-merge": Create}, ops: []Op{}},
		{name: "shim deleted, chained hook kept", files: map[string]string{"post-commit.agentx-chained": foreign},
			want: map[string]Kind{"post-commit": Create, "pre-push": Create, "post-merge": Create},
			ops:  []Op{{Op: "write", To: "post-commit"}}},
		{name: "our shim in the chained slot is dropped, never chained", files: map[string]string{"post-commit": foreign, "post-commit.agentx-chained": olderShim},
			want: map[string]Kind{"post-commit": Chain, "pre-push": Create, "post-merge": Create},
			ops: []Op{{Op: "remove", To: "post-commit.agentx-chained"}, {Op: "rename", From: "post-commit", To: "post-commit.agentx-chained"},
				{Op: "write", To: "post-commit"}}},
		{name: "manager reinstalled over our shim", files: map[string]string{"post-commit": "#!/bin/sh\nlefthook run post-commit\n", "post-commit.agentx-chained": foreign},
			want: map[string]Kind{"post-commit": Conflict, "pre-push": Create, "post-merge": Create}, ops: []Op{}},
		{name: "conflict forced keeps both", force: true,
			files: map[string]string{"post-commit": "new", "post-commit.agentx-chained": "old", "post-commit.agentx-chained.1": "older"},
			want:  map[string]Kind{"post-commit": Chain, "pre-push": Create, "post-merge": Create},
			ops: []Op{{Op: "rename", From: "post-commit.agentx-chained", To: "post-commit.agentx-chained.2"},
				{Op: "rename", From: "post-commit", To: "post-commit.agentx-chained"}, {Op: "write", To: "post-commit"}}},
		{name: "husky's hooks are never moved (they run by file name)", hooksPath: ".husky/_", force: true,
			files: map[string]string{"post-commit": ". \"$(dirname \"$0\")/h\"\n", "pre-push": "x", "post-merge": "x"},
			want:  map[string]Kind{"post-commit": Managed, "pre-push": Managed, "post-merge": Managed}, ops: []Op{}},
		{name: "husky v4 in .git/hooks", files: map[string]string{"post-commit": "#!/bin/sh\n# husky\nhookName=`basename \"$0\"`\n"},
			want: map[string]Kind{"post-commit": Managed, "pre-push": Create, "post-merge": Create}, ops: []Op{}},
		{name: "tracked hook in a core.hooksPath dir", hooksPath: ".githooks", tracked: []string{"post-commit"},
			files: map[string]string{"post-commit": foreign, "pre-push": foreign},
			want:  map[string]Kind{"post-commit": Managed, "pre-push": Chain, "post-merge": Create}, ops: []Op{}},
		{name: "all three foreign (core.hooksPath dir)", hooksPath: ".githooks", files: map[string]string{"post-commit": foreign, "pre-push": foreign, "post-merge": foreign},
			want: map[string]Kind{"post-commit": Chain, "pre-push": Chain, "post-merge": Chain},
			ops:  []Op{{Op: "rename", From: "post-commit", To: "post-commit.agentx-chained"}, {Op: "write", To: "post-commit"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sn := snap(tt.files)
			sn.HooksPath, sn.Tracked = tt.hooksPath, map[string]bool{}
			for _, f := range tt.tracked {
				sn.Tracked[f] = true
			}
			steps := PlanInstall(sn, tt.force)
			if got := kinds(steps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("kinds = %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(steps[0].Ops, tt.ops) {
				t.Errorf("post-commit ops = %+v, want %+v", steps[0].Ops, tt.ops)
			}
		})
	}
}

func TestPlanUninstall(t *testing.T) {
	t.Parallel()
	current := Shim("post-commit")
	tests := []struct {
		name  string
		files map[string]string
		want  Kind
		ops   []Op
	}{
		{"nothing", nil, Absent, []Op{}},
		{"our shim alone", map[string]string{"post-commit": current}, Remove, []Op{{Op: "remove", To: "post-commit"}}},
		{"our older shim", map[string]string{"post-commit": olderShim}, Remove, []Op{{Op: "remove", To: "post-commit"}}},
		{"shim and chained", map[string]string{"post-commit": current, "post-commit.agentx-chained": foreign}, Restore,
			[]Op{{Op: "remove", To: "post-commit"}, {Op: "rename", From: "post-commit.agentx-chained", To: "post-commit"}}},
		{"chained only", map[string]string{"post-commit.agentx-chained": foreign}, Restore,
			[]Op{{Op: "rename", From: "post-commit.agentx-chained", To: "post-commit"}}},
		{"foreign only", map[string]string{"post-commit": foreign}, Foreign, []Op{}},
		{"our shim in the chained slot", map[string]string{"post-commit": current, "post-commit.agentx-chained": olderShim}, Remove,
			[]Op{{Op: "remove", To: "post-commit.agentx-chained"}, {Op: "remove", To: "post-commit"}}},
		{"foreign over chained", map[string]string{"post-commit": foreign, "post-commit.agentx-chained": foreign}, Conflict, []Op{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := PlanUninstall(snap(tt.files))[0]
			if st.Kind != tt.want || !reflect.DeepEqual(st.Ops, tt.ops) {
				t.Errorf("got %s %+v, want %s %+v", st.Kind, st.Ops, tt.want, tt.ops)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	s := snap(map[string]string{
		"post-commit": Shim("post-commit"), "post-commit.agentx-chained": "#!/bin/sh\n# lefthook\n",
		"pre-push": olderShim, "post-merge": foreign, "post-commit.agentx-chained.1": "x",
	})
	got := Status(s)
	want := []HookStatus{
		{Hook: "post-commit", State: "installed", Chained: true, Manager: "lefthook", Backups: []string{"post-commit.agentx-chained.1"}},
		{Hook: "pre-push", State: "outdated"},
		{Hook: "post-merge", State: "foreign"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Status = %+v\nwant %+v", got, want)
	}
	husky := snap(nil)
	husky.HooksPath = ".husky/_"
	if m := Status(husky)[0].Manager; m != "husky" {
		t.Errorf("husky hooksPath: manager %q", m)
	}
}

// TestInstallUninstallRoundTrip: install then uninstall on disk leaves the
// hooks directory as it was, byte for byte and mode for mode, including a
// symlinked hook.
func TestInstallUninstallRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, testenv.WriteExecutable(filepath.Join(dir, "post-commit"), []byte(foreign+"\x00binary-ish\r\n"), 0o750))
	must(t, os.WriteFile(filepath.Join(dir, "pre-push.sample"), []byte("sample"), 0o644))
	must(t, testenv.WriteExecutable(filepath.Join(dir, "target"), []byte("#!/bin/sh\n"), 0o755))
	must(t, os.Symlink("target", filepath.Join(dir, "post-merge")))
	before := tree(t, dir)

	for i := 0; i < 2; i++ { // a second install is a no-op
		s, err := Read(dir)
		must(t, err)
		must(t, Apply(dir, PlanInstall(s, false)))
	}
	s, err := Read(dir)
	must(t, err)
	for _, st := range Status(s) {
		if st.State != "installed" {
			t.Errorf("%s: state %s after install", st.Hook, st.State)
		}
	}
	for _, h := range []string{"post-commit", "post-merge"} {
		if _, ok := s.Files[h+ChainedSuffix]; !ok {
			t.Errorf("%s not chained", h)
		}
	}
	s, err = Read(dir)
	must(t, err)
	must(t, Apply(dir, PlanUninstall(s)))
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("after uninstall:\n%v\nwant\n%v", after, before)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tree describes every entry of dir: name, mode, content or link target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	ents, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		must(t, err)
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			must(t, err)
			m[e.Name()] = "link " + target
			continue
		}
		data, err := os.ReadFile(p)
		must(t, err)
		m[e.Name()] = fi.Mode().String() + " " + string(data)
	}
	return m
}

type fakeRunner map[string]string

func (f fakeRunner) Git(_ context.Context, args ...string) (string, error) {
	out, ok := f[strings.Join(args, " ")]
	if !ok {
		return "", errors.New("exit status 1")
	}
	return out, nil
}

func TestLocate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    fakeRunner
		want Location
	}{
		{"default", fakeRunner{"rev-parse --git-path hooks": "/repo/.git/hooks\n"},
			Location{Dir: "/repo/.git/hooks"}},
		{"core.hooksPath (husky)", fakeRunner{"rev-parse --git-path hooks": "/repo/.husky/_\n",
			"config core.hooksPath": ".husky/_\n"}, Location{Dir: "/repo/.husky/_", HooksPath: ".husky/_"}},
		{"relative answer", fakeRunner{"rev-parse --git-path hooks": ".git/hooks\n"},
			Location{Dir: "/work/.git/hooks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Locate(context.Background(), tt.r, "/work")
			if err != nil || got != tt.want {
				t.Errorf("Locate = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := Locate(context.Background(), fakeRunner{}, "/work"); err == nil {
		t.Error("Locate outside a repository: no error")
	}
}

func TestMarkTracked(t *testing.T) {
	t.Parallel()
	s := snap(map[string]string{"post-commit": foreign, "pre-push": foreign})
	s.Dir, s.HooksPath = "/repo/.githooks", ".githooks"
	r := fakeRunner{"ls-files -- /repo/.githooks": ".githooks/post-commit\n.githooks/README.md\n.githooks/sub/pre-push\n"}
	MarkTracked(context.Background(), r, "/repo", s)
	if !reflect.DeepEqual(s.Tracked, map[string]bool{"post-commit": true}) {
		t.Errorf("Tracked = %v", s.Tracked)
	}
	s.HooksPath = "" // .git/hooks: git is not asked
	MarkTracked(context.Background(), fakeRunner{}, "/repo", s)
	if len(s.Tracked) != 0 {
		t.Errorf("without core.hooksPath: Tracked = %v", s.Tracked)
	}
}

// TestShimCopies: hooks/ at the repository root holds the shims users copy
// by hand; they must be exactly what install writes (-update rewrites them).
func TestShimCopies(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "..", "hooks")
	for _, name := range Names() {
		path := filepath.Join(dir, name)
		if *update {
			must(t, os.WriteFile(path, []byte(Shim(name)), 0o755))
			must(t, os.Chmod(path, 0o755))
		}
		data, err := os.ReadFile(path)
		must(t, err)
		if string(data) != Shim(name) {
			t.Errorf("%s differs from Shim(%q); run go test ./internal/core/githooks -run TestShimCopies -update", path, name)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", path)
		}
	}
}

// TestShimBehaviour runs the shim with /bin/sh: the chained hook runs first
// with the arguments and decides the status, AGENTX=0 turns only agentx
// off, and a failing binary never fails the hook.
func TestShimBehaviour(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	hook := filepath.Join(dir, "pre-push")
	must(t, testenv.WriteExecutable(hook, []byte(Shim("pre-push")), 0o755))
	bin := filepath.Join(dir, "fake-agentx-hook")
	must(t, testenv.WriteExecutable(bin, []byte("#!/bin/sh\necho \"bin $*\" >> \""+log+"\"\nexit 3\n"), 0o755))
	chained := filepath.Join(dir, "pre-push.agentx-chained")

	run := func(env ...string) (string, int) {
		t.Helper()
		_ = os.Remove(log)
		cmd := exec.Command(hook, "origin", "url")
		cmd.Env = append(os.Environ(), append([]string{"AGENTX_HOOK_BIN=" + bin, "AGENTX="}, env...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(log)
		return string(data), code
	}

	if out, code := run(); out != "bin git-hook pre-push origin url\n" || code != 0 {
		t.Errorf("no chained hook: log %q, status %d (want the binary called, status 0 despite its 3)", out, code)
	}
	must(t, testenv.WriteExecutable(chained, []byte("#!/bin/sh\necho \"chained $*\" >> \""+log+"\"\nexit 7\n"), 0o755))
	if out, code := run(); out != "chained origin url\nbin git-hook pre-push origin url\n" || code != 7 {
		t.Errorf("chained hook: log %q, status %d (want chained first, its status 7)", out, code)
	}
	if out, code := run("AGENTX=0"); out != "chained origin url\n" || code != 7 {
		t.Errorf("AGENTX=0: log %q, status %d (want only the chained hook)", out, code)
	}
	must(t, os.Chmod(chained, 0o644)) // git would not have run it either
	if out, code := run(); out != "bin git-hook pre-push origin url\n" || code != 0 {
		t.Errorf("non-executable chained hook: log %q, status %d", out, code)
	}
	if out, code := run("AGENTX_HOOK_BIN=", "PATH=/nonexistent"); out != "" || code != 0 {
		t.Errorf("no binary: log %q, status %d (want fail open)", out, code)
	}
}

func FuzzIsOurs(f *testing.F) {
	for _, s := range []string{Shim("post-commit"), foreign, olderShim, "# agentx-hook managed", "x\r\n# agentx-hook managed \r\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := false
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimRight(line, " \t\r") == Marker {
				want = true
			}
		}
		if got := IsOurs(data); got != want {
			t.Errorf("IsOurs(%q) = %v, want %v", data, got, want)
		}
	})
}
