//go:build linux

package process

import (
	"bytes"
	"os"
	"strconv"
)

// zombie reports whether /proc says pid has exited and waits to be reaped.
// The state is the field after the command name, which is in parentheses
// and may itself hold spaces and parentheses: hence the last ')'.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // no /proc answer: signal 0 alone decides
	}
	i := bytes.LastIndexByte(data, ')')
	return i > 0 && len(data) > i+2 && data[i+2] == 'Z'
}
