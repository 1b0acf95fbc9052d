//go:build !unix

package wire

import "errors"

// rawSupported says whether a TCP exchange is run by [Conn.doRaw].
const rawSupported = false

func readFD(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }

func writeFD(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
