"""A stand-in for mxeval.execution (amazon-science/mxeval, which is not
installable here), written from its published behaviour, for
language/mixtral-8x7b's evaluate_mbxp.py: the checkers of the six
languages it scores run the program mxeval assembles from
problem["prompt"], the completion and problem["test"], as mxeval runs
it, on this machine and unconfined (run it on the fixtures alone):

- check_correctness (Python): prompt + completion + "\\n" + test + "\\n"
  + "check(ENTRY_POINT)" exec'd in a child process, in a temporary
  directory, after the destructive functions of os, shutil and
  subprocess, exit, quit and help are set to None, its output swallowed,
  its stdin unreadable, under an alarm of timeout seconds, the parent
  waiting timeout + 1; it passes when no exception escapes.
- the others: prompt + completion + test written to one file in a
  temporary directory; compiled there (within 100 s) where the language
  is compiled, then run (within int(timeout) s); they pass on exit
  status 0. cpp: g++ FILE.cpp -o FILE_cpp, then ./FILE_cpp; javascript:
  node FILE.js; typescript: tsc FILE.ts --target es5 --lib es2016
  (mxeval's npx tsc, the tsc on the PATH), which counts as compiled on
  exit status 2 alone, then node FILE.js; php: php FILE.php; ruby: ruby
  FILE.rb.

The checkers of the languages evaluate_mbxp.py skips (csharp, go, java,
kotlin, perl, scala, swift) are imported, never called: they raise."""
import builtins
import contextlib
import faulthandler
import io
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile


def _result(problem, passed, message):
    return {"task_id": problem["task_id"], "passed": passed, "result": message, "completion_id": None}


def _compiled_and_run(problem, completion, timeout, name, run, compile=None, compiled=lambda status: status == 0):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, name), "w") as f:
            f.write(problem["prompt"] + completion + problem["test"])
        try:
            if compile is not None:
                c = subprocess.run(compile, cwd=d, timeout=100, capture_output=True, text=True)
                if not compiled(c.returncode):
                    return _result(problem, False, c.stderr)
            r = subprocess.run(run, cwd=d, timeout=int(timeout), capture_output=True, text=True)
            return _result(problem, r.returncode == 0, r.stderr)
        except Exception as e:  # a timeout, a missing program
            return _result(problem, False, str(e))


def check_correctness_cpp(problem, completion, timeout, completion_id=None, verbose=False):
    return _compiled_and_run(problem, completion, timeout, "main.cpp", ["./main_cpp"],
                             ["g++", "main.cpp", "-o", "main_cpp"])


def check_correctness_javascript(problem, completion, timeout, completion_id=None, verbose=False):
    return _compiled_and_run(problem, completion, timeout, "main.js", ["node", "main.js"])


def check_correctness_typescript(problem, completion, timeout, completion_id=None, verbose=False):
    return _compiled_and_run(problem, completion, timeout, "main.ts", ["node", "main.js"],
                             ["tsc", "main.ts", "--target", "es5", "--lib", "es2016"], lambda status: status == 2)


def check_correctness_php(problem, completion, timeout, completion_id=None, verbose=False):
    return _compiled_and_run(problem, completion, timeout, "main.php", ["php", "main.php"])


def check_correctness_ruby(problem, completion, timeout, completion_id=None, verbose=False):
    return _compiled_and_run(problem, completion, timeout, "main.rb", ["ruby", "main.rb"])


class _Alarm(Exception):
    pass


class _Sink(io.StringIO):
    def read(self, *args, **kwargs):
        raise OSError

    readline = readlines = read

    def readable(self, *args, **kwargs):
        return False


def _ring(signum, frame):
    raise _Alarm()


def _disarm():
    faulthandler.disable()
    builtins.exit = builtins.quit = builtins.help = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork",
                 "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown",
                 "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"):
        setattr(os, name, None)
    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def _exec(program, timeout, directory, verdict):
    os.chdir(directory)
    _disarm()
    sink, stdin = _Sink(), sys.stdin
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            sys.stdin = sink
            signal.signal(signal.SIGALRM, _ring)
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                exec(program, {})
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                sys.stdin = stdin
        verdict.append("passed")
    except _Alarm:
        verdict.append("timed out")
    except BaseException as e:
        verdict.append(f"failed: {e}")


def check_correctness(problem, completion, timeout, completion_id=None):
    program = problem["prompt"] + completion + "\n" + problem["test"] + "\n" + f"check({problem['entry_point']})"
    manager = multiprocessing.Manager()
    verdict = manager.list()
    with tempfile.TemporaryDirectory() as d:
        p = multiprocessing.Process(target=_exec, args=(program, timeout, d, verdict))
        p.start()
        p.join(timeout=timeout + 1)
        if p.is_alive():
            p.kill()
    result = verdict[0] if verdict else "timed out"
    return _result(problem, result == "passed", result)


def _skipped(*args, **kwargs):
    raise NotImplementedError("evaluate_mbxp.py skips this language; the mxeval stand-in has no checker for it")


check_correctness_csharp = check_correctness_go = check_correctness_java = check_correctness_kotlin = _skipped
check_correctness_perl = check_correctness_scala = check_correctness_swift = _skipped
