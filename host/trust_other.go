//go:build !unix

package host

import "os"

// unsafeMode checks nothing where permissions are not unix modes.
func unsafeMode(os.FileInfo) string { return "" }
