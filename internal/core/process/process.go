// Package process owns what the tools know and do about processes: whether
// the process that left a lock or a marker still runs on this host
// (callers compare host names first; a pid means nothing on another
// machine), the process groups and trees a command's children are killed
// by, and the environment those children get (WithEnv, Env).
package process
