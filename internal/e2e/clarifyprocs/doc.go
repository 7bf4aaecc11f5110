// Package clarifyprocs proves, with hundreds of real agentx-hook
// processes, that concurrent `clarify request`s on one workspace lose no
// request and apply none twice: eight workers of fifty requests each, on
// one issue's ledger and spread over four (the lock's cross-process
// guarantee; no race detector sees across processes).
//
// The package holds tests only. They were internal/hookcmd's, which ran
// them through its test binary standing in for agentx-hook; here the real
// binary (testbin.SharedHook, built once per content of the module) is
// started, a third cheaper per process, and the package runs beside
// hookcmd instead of inside it, its longest tail (issue 37).
package clarifyprocs
