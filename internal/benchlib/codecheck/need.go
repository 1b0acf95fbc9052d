package codecheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoToolchain is what a [ToolchainError] is.
var ErrNoToolchain = errors.New("toolchain not installed")

// ToolchainError names a language whose toolchain lacks a program.
type ToolchainError struct {
	Language, Program string
	// Install says how to install it ("Debian: apt-get install g++");
	// "" for nothing to say.
	Install string
}

func (e *ToolchainError) Error() string {
	msg := fmt.Sprintf("%s programs need %s, which is not in /usr/bin or /bin", e.Language, e.Program)
	if e.Install != "" {
		msg += " (" + e.Install + ")"
	}
	return msg
}

// Is makes a ToolchainError an [ErrNoToolchain].
func (e *ToolchainError) Is(target error) bool { return target == ErrNoToolchain }

// Need returns a [*ToolchainError] for the first of programs that is
// not an executable file in /usr/bin or /bin, where the sandbox looks
// its commands up (codesandbox.Run), nil when all are.
func Need(language, install string, programs ...string) error {
	for _, p := range programs {
		if !found(p) {
			return &ToolchainError{Language: language, Program: p, Install: install}
		}
	}
	return nil
}

func found(program string) bool {
	for _, d := range [...]string{"/usr/bin", "/bin"} {
		st, err := os.Stat(filepath.Join(d, program))
		if err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
