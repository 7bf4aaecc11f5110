package testenv

import "time"

// HangGuard is how long a test waits for something that takes
// milliseconds (a read that must not block on a FIFO, a server that must
// end once its input closes) before it calls it hung. It only has to
// turn a hang into a failure inside go test's 10-minute timeout: a bound
// of a few seconds is a verdict on the machine's load (a single verify
// took over 2 s under strace beside four busy loops), not on the code.
const HangGuard = 2 * time.Minute
