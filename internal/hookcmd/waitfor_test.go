package hookcmd

import (
	"os"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitForCmd is the script command `waitfor FILE REGEXP`: it waits until
// FILE exists and matches REGEXP, reading it every 10 ms, so a script
// acts on an event a background process makes (a request recorded)
// rather than after a sleep. A minute without it fails the script: the
// bound of a broken test, not a wait any passing run comes near.
func waitForCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfor FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(time.Minute)
	for {
		if data, err := os.ReadFile(path); err == nil && re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor: %s did not match %q within a minute", args[0], args[1])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
