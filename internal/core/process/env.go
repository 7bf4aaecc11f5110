package process

import "context"

// envKey carries the environment of a command's child processes.
type envKey struct{}

// WithEnv returns ctx carrying env as the environment every child process
// started for this command gets (git, a responder, the background index
// rebuild): what a command run inside another program (a test running
// scripts in parallel, each with its own HOME and GIT_*) has in place of
// the process's environment. Without it children inherit the process's.
func WithEnv(ctx context.Context, env []string) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// Env is the environment for a child process started under ctx, for its
// exec.Cmd.Env: the one WithEnv gave, else nil, which makes the child
// inherit the process's (and exec.Cmd adds PWD for its Dir, as before).
func Env(ctx context.Context) []string {
	if env, ok := ctx.Value(envKey{}).([]string); ok {
		return append([]string(nil), env...)
	}
	return nil
}
