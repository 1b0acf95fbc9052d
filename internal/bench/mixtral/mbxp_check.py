"""Runs one MBXP Python program inside the code sandbox as mxeval's
check_correctness runs it (written from its published behaviour): the
program (program.py: prompt, solution, test code and the call of check)
is exec'd in a fresh namespace after the destructive functions of os,
shutil and subprocess, exit, quit and help are set to None, its stdout
and stderr swallowed, its stdin unreadable, under an alarm of argv[2]
seconds; any exception, SystemExit included, fails it. The last line on
stdout is the verdict: the nonce in argv[1], then PASS, FAIL or TIMEOUT."""
import builtins
import contextlib
import faulthandler
import io
import os
import shutil
import signal
import subprocess
import sys

NONCE, SECONDS = sys.argv[1], float(sys.argv[2])
OUT = os.dup(1)
WRITE = os.write


class Alarm(Exception):
    pass


class Sink(io.StringIO):
    """Takes writes; reading it raises, as from a closed pipe."""

    def read(self, *args, **kwargs):
        raise OSError

    readline = readlines = read

    def readable(self, *args, **kwargs):
        return False


def ring(signum, frame):
    raise Alarm()


def disarm():
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


def judge(program):
    sink = Sink()
    stdin = sys.stdin
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            sys.stdin = sink
            signal.signal(signal.SIGALRM, ring)
            signal.setitimer(signal.ITIMER_REAL, SECONDS)
            try:
                exec(program, {})
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                sys.stdin = stdin
        return "PASS"
    except Alarm:
        return "TIMEOUT"
    except BaseException:
        return "FAIL"


with open("program.py") as f:
    source = f.read()
disarm()
WRITE(OUT, ("\n" + NONCE + " " + judge(source) + "\n").encode())
