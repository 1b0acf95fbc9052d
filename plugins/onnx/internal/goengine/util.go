package goengine

import "strconv"

func itoa(v int) string { return strconv.Itoa(v) }
