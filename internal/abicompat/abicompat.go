package abicompat

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// A Release is an ABI minor that plugins were built against, and the
// commit of this repository whose SDK speaks exactly that minor: the last
// one before the next minor.
type Release struct {
	Minor  int
	Commit string
}

// Name reads "v1.0".
func (r Release) Name() string { return fmt.Sprintf("v1.%d", r.Minor) }

// Releases lists the released minors of ABI v1 before the current one,
// oldest first.
func Releases() []Release {
	return []Release{
		// v1.0: the parent of "abi v1.1: shared rings ...".
		{Minor: 0, Commit: "e240ba6c5583d97f13c4a41cb52428e67059aa60"},
		// v1.1: "sdk: one detach call at the end of a session", the last
		// commit before v1.2.
		{Minor: 1, Commit: "16057b678aa983d28947adfc7b95b34f2c5823f7"},
		// v1.2: "echo: the test host names its shared-memory directory
		// ...", the last commit before v1.3.
		{Minor: 2, Commit: "e8b9b6731f92ff2924e0fa47cdedc13353ac3d24"},
		// v1.3: "exit codes: a served plugin's failure ...", the last
		// commit before v1.4.
		{Minor: 3, Commit: "6e70efb9174befbfae7620f60cd6a5fb55078a16"},
	}
}

// Latest returns the newest released minor before the current one: the
// SDK as it was just before this one.
func Latest() Release {
	r := Releases()
	return r[len(r)-1]
}

// ErrNoHistory: the commit, git or the go tool is not available here (a
// source archive, a shallow clone).
var ErrNoHistory = errors.New("the repository's history is not available (a full git clone is needed)")

// trees caches the source trees extracted per commit, for the process.
var trees sync.Map // commit -> *tree

type tree struct {
	once sync.Once
	dir  string
	err  error
}

// Build builds the main package pkg (a path from the repository's root,
// "examples/echo/cmd/echo") as it was at r.Commit into the file out, with
// cgo off. repo is any directory inside the repository.
//
// # Errors
//
// Wraps ErrNoHistory when the commit cannot be read; otherwise the build's
// output.
func (r Release) Build(ctx context.Context, repo, pkg, out string) error {
	dir, err := r.source(ctx, repo)
	if err != nil {
		return err
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoHistory, err)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", abs, "./"+filepath.ToSlash(pkg))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s at %s (ABI %s): %w\n%s", pkg, r.Commit[:12], r.Name(), err, b)
	}
	return nil
}

// ReadFile returns a file of the repository as it was at r.Commit.
func (r Release) ReadFile(ctx context.Context, repo, path string) ([]byte, error) {
	dir, err := r.source(ctx, repo)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
}

// source returns the tree of r.Commit, extracted once into the
// temporary directory and kept there for later runs (a commit's tree
// never changes; it is 5 MB).
func (r Release) source(ctx context.Context, repo string) (string, error) {
	v, _ := trees.LoadOrStore(r.Commit, &tree{})
	t := v.(*tree)
	t.once.Do(func() {
		dir := filepath.Join(os.TempDir(), "mlperf-host-abicompat-"+r.Commit)
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			t.dir = dir
			return
		}
		tmp, err := extract(ctx, repo, r.Commit)
		if err != nil {
			t.err = err
			return
		}
		// Another process may have won the race: either tree will do.
		if err := os.Rename(tmp, dir); err != nil {
			os.RemoveAll(tmp)
			if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr != nil {
				t.err = err
				return
			}
		}
		t.dir = dir
	})
	return t.dir, t.err
}

// extract writes the tree of commit into a new temporary directory.
func extract(ctx context.Context, repo, commit string) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoHistory, err)
	}
	top, err := exec.CommandContext(ctx, git, "-C", repo, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s is not in a git work tree: %v", ErrNoHistory, repo, err)
	}
	// From the top: inside a subdirectory, git archive takes that
	// subdirectory only.
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, git, "-C", strings.TrimSpace(string(top)), "archive", "--format=tar", commit)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: git archive %s: %v: %s", ErrNoHistory, commit[:12], err, strings.TrimSpace(stderr.String()))
	}
	dir, err := os.MkdirTemp("", "mlperf-host-abi-"+commit[:12]+"-")
	if err != nil {
		return "", err
	}
	if err := untar(&out, dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("extract %s: %w", commit[:12], err)
	}
	return dir, nil
}

// untar writes the regular files and directories of a git archive.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive entry %q leaves the tree", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
