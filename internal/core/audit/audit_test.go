package audit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentx-dev/agentx/internal/testenv"

	"github.com/agentx-dev/agentx/internal/core/clock"
	"github.com/agentx-dev/agentx/internal/core/lock"
)

var t0 = time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC)

func trail(t testing.TB, clk clock.Clock) *Trail {
	return &Trail{Dir: filepath.Join(t.TempDir(), "state"), Clock: clk, Tool: "agentx-hook", Version: "test"}
}

func appendN(t testing.TB, tr *Trail, n int) {
	for i := 0; i < n; i++ {
		err := tr.Append(context.Background(), Entry{Actor: "engineer", Op: "clarify.request", Issue: 42,
			IDs: []string{fmt.Sprintf("CLR-42-%03d", i+1)}, After: map[string]string{"CLR-42-001": "sha256:x"}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%d", f.Code, f.Line))
	}
	return out
}

func TestChainDetectsTampering(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tamper func(lines [][]byte) [][]byte
		want   []string
	}{
		{"intact", func(l [][]byte) [][]byte { return l }, nil},
		{"one character edited", func(l [][]byte) [][]byte {
			l[1] = bytes.Replace(l[1], []byte("engineer"), []byte("enginees"), 1)
			return l
		}, []string{"AUDIT_LINE_EDITED@2"}},
		{"line removed", func(l [][]byte) [][]byte { return append(l[:1:1], l[2:]...) }, []string{"AUDIT_CHAIN_BROKEN@2"}},
		{"lines swapped", func(l [][]byte) [][]byte { l[1], l[2] = l[2], l[1]; return l }, []string{"AUDIT_REORDERED@2"}},
		{"line duplicated", func(l [][]byte) [][]byte { return append(l, l[1]) }, []string{"AUDIT_DUPLICATE@5"}},
		{"junk line", func(l [][]byte) [][]byte { l[2] = []byte(`{"time":"x"}`); return l }, []string{"AUDIT_BAD_LINE@3", "AUDIT_CHAIN_BROKEN@4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := trail(t, clock.NewFake(t0))
			appendN(t, tr, 4)
			data, err := os.ReadFile(tr.Path())
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			lines = tt.tamper(lines)
			if err := os.WriteFile(tr.Path(), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			got, _, err := Check(tr.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(codes(got)) != fmt.Sprint(tt.want) {
				t.Fatalf("findings = %v, want %v (%+v)", codes(got), tt.want, got)
			}
		})
	}
}

func TestTornLastLineIsInfoAndChainContinues(t *testing.T) {
	t.Parallel()
	tr := trail(t, clock.NewFake(t0))
	appendN(t, tr, 2)
	f, err := os.OpenFile(tr.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"time":"2026-03-30T12:00:00.000Z","actor":"eng`)
	_ = f.Close()
	got, _, _ := Check(tr.Dir)
	if len(got) != 1 || got[0].Code != CodeTorn || !got[0].Info {
		t.Fatalf("findings = %+v, want one AUDIT_TORN info", got)
	}
	appendN(t, tr, 1)
	got, n, _ := Check(tr.Dir)
	if len(got) != 1 || got[0].Code != CodeTorn || n != 3 {
		t.Fatalf("after another append: findings %+v, %d lines", got, n)
	}
}

func TestRotationChainsAcrossMonths(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0)
	tr := trail(t, clk)
	appendN(t, tr, 2)
	clk.Advance(3 * 24 * time.Hour) // April
	appendN(t, tr, 2)
	files, _ := Files(tr.Dir)
	if len(files) != 2 || filepath.Base(files[0]) != "audit-2026-03.jsonl" || filepath.Base(files[1]) != FileName {
		t.Fatalf("files = %v", files)
	}
	got, n, err := Check(tr.Dir)
	if err != nil || len(got) != 0 || n != 4 {
		t.Fatalf("findings %+v, %d lines, %v", got, n, err)
	}
	// A new trail file started after a crash between the rename and the
	// first append still chains to the rotated one.
	if err := os.Rename(tr.Path(), filepath.Join(tr.Dir, "audit-2026-04.jsonl")); err != nil {
		t.Fatal(err)
	}
	appendN(t, tr, 1)
	if got, _, _ := Check(tr.Dir); len(got) != 0 {
		t.Fatalf("findings %+v", got)
	}
	// A clock set back does not rotate: the files stay in chain order.
	clk.Set(t0.Add(-60 * 24 * time.Hour))
	appendN(t, tr, 1)
	if got, _, _ := Check(tr.Dir); len(got) != 0 {
		t.Fatalf("after a clock set back: %+v", got)
	}
	if f, _ := Files(tr.Dir); len(f) != 3 {
		t.Fatalf("files = %v", f)
	}
	// Removing the older file is detected.
	_ = os.Remove(files[0])
	if got, _, _ := Check(tr.Dir); len(got) != 1 || got[0].Code != CodeBroken {
		t.Fatalf("findings %+v", got)
	}
}

// A full file rotates within its month, so the current file (which a
// sync pushes whole) stays small; the chain runs through every file in
// order, past the tenth.
func TestRotationBySize(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0)
	tr := trail(t, clk)
	tr.RotateSize = 600 // about two lines
	appendN(t, tr, 30)
	files, err := Files(tr.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 11 || filepath.Base(files[0]) != "audit-2026-03.jsonl" || filepath.Base(files[1]) != "audit-2026-03.2.jsonl" ||
		filepath.Base(files[len(files)-1]) != FileName {
		t.Fatalf("files = %v", files)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() > tr.RotateSize+1024 {
			t.Errorf("%s: %v, %d bytes", f, err, fi.Size())
		}
	}
	if got, n, err := Check(tr.Dir); err != nil || len(got) != 0 || n != 30 {
		t.Fatalf("findings %+v, %d lines, %v", got, n, err)
	}
	entries, err := History(tr.Dir, Filter{})
	if err != nil || len(entries) != 30 {
		t.Fatalf("history: %d entries, %v", len(entries), err)
	}
	for i, e := range entries {
		if want := fmt.Sprintf("CLR-42-%03d", i+1); e.IDs[0] != want {
			t.Fatalf("entry %d is %s, want %s: the files were read out of order", i, e.IDs[0], want)
		}
	}
	// The next month starts with the month's own file again.
	clk.Advance(3 * 24 * time.Hour)
	appendN(t, tr, 1)
	if got, _, _ := Check(tr.Dir); len(got) != 0 {
		t.Fatalf("findings after the month's rotation %+v", got)
	}
}

func TestConcurrentAppendsKeepOneChain(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A Locker of its own: the file lock, not the in-process
			// mutex, is what serialises the writers. The verdict is one
			// unbroken chain, not speed: a wait only a hang exceeds (the
			// default 5 s is what a loaded machine can run out of).
			tr := &Trail{Dir: dir, Locks: lock.New(lock.Options{Wait: 2 * time.Minute})}
			for i := 0; i < 25; i++ {
				if err := tr.Append(context.Background(), Entry{Actor: "a", Op: "memory.add"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got, n, err := Check(dir)
	if err != nil || len(got) != 0 || n != 100 {
		t.Fatalf("findings %+v, %d lines, %v", got, n, err)
	}
}

func TestHistoryFilters(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0)
	tr := trail(t, clk)
	ctx := context.Background()
	_ = tr.Append(ctx, Entry{Actor: "engineer", Op: "clarify.request", Issue: 42, IDs: []string{"CLR-42-001"}})
	clk.Advance(time.Hour)
	_ = tr.Append(ctx, Entry{Actor: "engineer", Op: "memory.add", Issue: 7, IDs: []string{"obs-e-7-1-abcdef"}})
	clk.Advance(time.Hour)
	_ = tr.Append(ctx, Entry{Actor: "architect", Op: "clarify.answer", Issue: 42, IDs: []string{"CLR-42-001"}})
	for _, tt := range []struct {
		f    Filter
		want int
	}{{Filter{}, 3}, {Filter{ID: "CLR-42-001"}, 2}, {Filter{Issue: 7}, 1}, {Filter{Since: t0.Add(90 * time.Minute)}, 1}} {
		got, err := History(tr.Dir, tt.f)
		if err != nil || len(got) != tt.want {
			t.Errorf("History(%+v) = %d entries (%v), want %d", tt.f, len(got), err, tt.want)
		}
	}
}

// Each hands on what History returns, in the chain's order (issue 35:
// verify reads the trail again without holding it decoded).
func TestEachIsHistoryInChainOrder(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0.Add(time.Hour))
	tr := trail(t, clk)
	ctx := context.Background()
	_ = tr.Append(ctx, Entry{Actor: "engineer", Op: "memory.add", Issue: 7, IDs: []string{"late"}})
	clk.Set(t0) // a line stamped before the one before it (another clock)
	_ = tr.Append(ctx, Entry{Actor: "engineer", Op: "memory.add", Issue: 7, IDs: []string{"early"}})
	var got []string
	if err := Each(tr.Dir, func(e *Entry) { got = append(got, e.IDs[0]) }); err != nil {
		t.Fatal(err)
	}
	h, err := History(tr.Dir, Filter{})
	if err != nil || len(h) != 2 || h[0].IDs[0] != "early" {
		t.Fatalf("history %+v %v", h, err)
	}
	if strings.Join(got, ",") != "late,early" {
		t.Fatalf("Each handed %v, want the chain's order late,early", got)
	}
}

func TestLongEntriesAreClipped(t *testing.T) {
	t.Parallel()
	tr := trail(t, nil)
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("obs-x-1-%d-aaaaaa", i)
	}
	if err := tr.Append(context.Background(), Entry{Actor: "a", Op: "memory.rebuild", IDs: ids}); err != nil {
		t.Fatal(err)
	}
	// Lines longer than the tail Append reads first still chain.
	big := map[string]string{}
	for _, id := range ids[:MaxIDs] {
		big[id] = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	}
	for i := 0; i < 3; i++ {
		if err := tr.Append(context.Background(), Entry{Actor: "a", Op: "memory.compact", Before: big, After: big}); err != nil {
			t.Fatal(err)
		}
	}
	h, _ := History(tr.Dir, Filter{})
	if len(h) != 4 || len(h[0].IDs) != MaxIDs || h[0].MoreIDs != 1000-MaxIDs {
		t.Fatalf("entry = %+v", h)
	}
	if got, n, _ := Check(tr.Dir); len(got) != 0 || n != 4 {
		t.Fatalf("findings %+v (%d lines)", got, n)
	}
}

func BenchmarkAppend(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("fsync=%v", sync), func(b *testing.B) {
			tr := trail(b, nil)
			tr.Sync = sync
			tr.Locks = lock.New(lock.Options{})
			e := Entry{Actor: "engineer", Op: "clarify.request", Issue: 42, IDs: []string{"CLR-42-001"},
				Before: map[string]string{}, After: map[string]string{"CLR-42-001": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := tr.Append(ctx, e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzCheck: whatever bytes the trail holds, Check returns what it finds
// as findings, never as an error, and neither Check nor History panics.
func FuzzCheck(f *testing.F) {
	line, _ := Encode(Entry{Time: "2026-03-30T12:00:00.000Z", Actor: "a", Op: "x"})
	f.Add(append(line, '\n'))
	f.Add([]byte("{\"time\":\"2026\n{}\n"))
	f.Add([]byte("\x00\xff\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Check(dir); err != nil {
			t.Fatal(err)
		}
		_, _ = History(dir, Filter{ID: "x"})
	})
}

// FuzzLineHash: the hash reader accepts exactly the lines Encode writes.
func FuzzLineHash(f *testing.F) {
	f.Add("engineer", "clarify.request", "CLR-42-001")
	f.Add("\u2028<&>", "\x00", "\"")
	f.Fuzz(func(t *testing.T, actor, op, id string) {
		line, err := Encode(Entry{Time: "2026-03-30T12:00:00.000Z", Actor: actor, Op: op, IDs: []string{id}})
		if err != nil {
			t.Fatal(err)
		}
		computed, stated, ok := LineHash(line)
		if !ok || computed != stated {
			t.Fatalf("LineHash(%s) = %s, %s, %v", line, computed, stated, ok)
		}
		if _, err := Decode(line); err != nil {
			t.Fatal(err)
		}
	})
}

// TestConcurrentProcesses: processes appending at once (the test binary
// started again as children) leave one unbroken chain with every line.
func TestConcurrentProcesses(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("AGENTX_AUDIT_CHILD_DIR"); dir != "" {
		tr := &Trail{Dir: dir}
		for i := 0; i < 50; i++ {
			if err := tr.Append(context.Background(), Entry{Actor: "child", Op: "memory.add"}); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	dir := filepath.Join(t.TempDir(), "state")
	env := []string{"AGENTX_AUDIT_CHILD_DIR=" + dir}
	testenv.RunSelf(t, "^TestConcurrentProcesses$", env, env, env, env)
	got, n, err := Check(dir)
	if err != nil || len(got) != 0 || n != 200 {
		t.Fatalf("findings %+v, %d lines, %v", got, n, err)
	}
}

// TestUnionOfTwoTrailsVerifies: two machines (or branches) that appended
// to copies of one trail merge by keeping both sides' lines (git's
// merge=union: the common lines, then ours, then theirs); every line still
// names an earlier one, so the result verifies, and a line removed from
// it is still detected when a later line follows it (the last line of
// each side, like the end of the file, is followed by none).
func TestUnionOfTwoTrailsVerifies(t *testing.T) {
	t.Parallel()
	base := trail(t, clock.NewFake(t0))
	appendN(t, base, 3)
	common, _ := os.ReadFile(base.Path())
	sides := [2][]byte{}
	for i := range sides {
		tr := trail(t, clock.NewFake(t0.Add(time.Duration(i+1)*time.Minute)))
		if err := os.MkdirAll(tr.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(tr.Path(), common, 0o644)
		appendN(t, tr, 2)
		data, _ := os.ReadFile(tr.Path())
		sides[i] = data[len(common):]
	}
	merged := append(append(append([]byte{}, common...), sides[0]...), sides[1]...)
	_ = os.WriteFile(base.Path(), merged, 0o644)
	if got, n, _ := Check(base.Dir); len(got) != 0 || n != 7 {
		t.Fatalf("union: findings %+v, %d lines", got, n)
	}
	// The next append chains to the last line and still verifies.
	appendN(t, base, 1)
	if got, _, _ := Check(base.Dir); len(got) != 0 {
		t.Fatalf("after an append: %+v", got)
	}
	lines := bytes.SplitAfter(merged, []byte("\n"))
	cut := append(append([]byte{}, bytes.Join(lines[:3], nil)...), bytes.Join(lines[4:], nil)...)
	_ = os.WriteFile(base.Path(), cut, 0o644)
	if got, _, _ := Check(base.Dir); len(got) != 1 || got[0].Code != CodeBroken {
		t.Fatalf("a line removed from the union: %+v", got)
	}
}

// TestAppendToChainsInMemory: the trail the Action keeps on the state
// branch chains like a file's, past a torn last line.
func TestAppendToChainsInMemory(t *testing.T) {
	t.Parallel()
	var data []byte
	var err error
	for i, actor := range []string{"octocat", "hubot"} {
		if data, err = AppendTo(data, Entry{Time: clock.Format(t0.Add(time.Duration(i) * time.Minute)), Actor: actor, Op: "clarify.answer"}); err != nil {
			t.Fatal(err)
		}
	}
	data = append(data, `{"time":"2026`...)
	if data, err = AppendTo(data, Entry{Time: clock.Format(t0.Add(time.Hour)), Actor: "octocat", Op: "clarify.resolve", Tool: "agentx-action"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, FileName), data, 0o644)
	got, n, err := Check(dir)
	if err != nil || n != 3 || len(got) != 1 || got[0].Code != CodeTorn {
		t.Fatalf("findings %+v, %d lines, %v", got, n, err)
	}
	if _, err := AppendTo(nil, Entry{Actor: "x"}); err == nil {
		t.Fatal("an entry without a time was appended")
	}
	// A new month: the trail so far becomes the month's file, and the
	// new current trail chains to it.
	cur, month, err := AppendRotating(data, Entry{Time: "2026-04-02T00:00:00.000Z", Actor: "octocat", Op: "clarify.ask"})
	if err != nil || month != "2026-03" {
		t.Fatalf("rotating: %q, %v", month, err)
	}
	_ = os.WriteFile(filepath.Join(dir, RotatedName(month)), data, 0o644)
	_ = os.WriteFile(filepath.Join(dir, FileName), cur, 0o644)
	if got, n, _ := Check(dir); n != 4 || len(got) != 1 || got[0].Code != CodeTorn {
		t.Fatalf("after rotating: %+v, %d lines", got, n)
	}
}
