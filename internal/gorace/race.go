//go:build race

package gorace

import "os"

func init() {
	if _, ok := os.LookupEnv("GORACE"); !ok {
		_ = os.Setenv("GORACE", Value)
	}
}
