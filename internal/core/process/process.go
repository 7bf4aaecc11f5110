// Package process owns the one question the tools ask about other
// processes: is the process that left a lock or a marker still running on
// this host. Callers compare host names first; a pid means nothing on
// another machine.
package process
