package testenv

// rusageThread is RUSAGE_THREAD: the calling thread's own CPU.
const rusageThread = 1
