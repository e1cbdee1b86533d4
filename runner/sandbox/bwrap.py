"""The bwrap backend: the contestant in bubblewrap (util-linux's unshare where bubblewrap is missing), for
hosts without Docker and the embedded default; the judge stays outside. docs/sandbox.md, "`bwrap`", says
what the contestant gets and the threat each part stops."""

from __future__ import annotations

import contextlib
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from runner import settings
from runner.sandbox import stem, uids
from runner.sandbox.base import Sandbox
from runner.sandbox.job import (
    RUNNER_ROOT,
    Job,
    Process,
    contestant_env,
    die_with_parent,
    first_for_the_oom_killer,
    rlimits,
)

ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives")
TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")  # on merged-/usr systems, links into /usr
HOSTNAME = "sandbox"
USER_NAME = "contestant"


def runtime_paths() -> list[str]:
    """The Python the judge runs (its installation and the venv) outside /usr: bound read-only."""
    candidates = {
        sys.prefix,
        sys.base_prefix,
        os.path.realpath(sys.base_prefix),
        os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))),
    }
    out: list[str] = []
    for path in sorted(candidates, key=len):
        if path in ("/", "") or path.startswith("/usr/") or path == "/usr" or not os.path.isdir(path):
            continue
        if any(path == p or path.startswith(p + "/") for p in out):
            continue
        out.append(path)
    return out


def job_entries(job: Job) -> list[Path]:
    """What the contestant sees of its job directory, read-only: the submission and task.py (the scratch
    folder is a tmpfs of its own; the sandbox's own files stay out of sight)."""
    return [e for e in sorted(job.dir.iterdir()) if e != job.scratch and not e.name.startswith(".sandbox-")]


def _account_files(job_dir: Path, uid: int) -> Path:
    """/etc/passwd and /etc/group for the sandbox: the contestant's user only (getpass, ~ and pip look)."""
    etc = job_dir / ".sandbox-etc"
    etc.mkdir(exist_ok=True)
    (etc / "passwd").write_text(f"{USER_NAME}:x:{uid}:{uid}:contestant:{job_dir / 'scratch'}:/bin/sh\n")
    (etc / "group").write_text(f"{USER_NAME}:x:{uid}:\n")
    for f in etc.iterdir():
        f.chmod(0o644)
    return etc


def bwrap_argv(
    job: Job,
    argv: list[str],
    *,
    uid: int,
    python: str = sys.executable,
    bwrap: str = "bwrap",
    runtime: list[str] | None = None,
    staged: dict[str, str] | None = None,
) -> list[str]:
    """The whole bubblewrap command line for one contestant: a pure function, checked by the tests.
    `staged` maps a host path to where the launcher made it reachable for the job's uid (see `_Stage`)."""
    staged = staged or {}
    a = [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        HOSTNAME,
        "--uid",
        str(uid),
        "--gid",
        str(uid),
    ]
    a += ["--ro-bind", "/usr", "/usr"]
    for top in TOP_LINKS:
        path = f"/{top}"
        if os.path.islink(path):
            a += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            a += ["--ro-bind", path, path]
    for name in ETC_FILES:
        a += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    etc = job.dir / ".sandbox-etc"
    a += ["--ro-bind", str(etc / "passwd"), "/etc/passwd", "--ro-bind", str(etc / "group"), "/etc/group"]
    for path in [*(runtime_paths() if runtime is None else runtime), str(RUNNER_ROOT / "runner")]:
        a += ["--ro-bind", staged.get(path, path), path]
    for entry in job_entries(job):
        a += ["--ro-bind", str(entry), str(entry)]
    a += ["--size", str(job.limits.scratch_bytes), "--perms", "0700", "--tmpfs", str(job.scratch)]
    a += ["--proc", "/proc", "--dev", "/dev"]
    # bwrap's /dev/shm lies on its /dev tmpfs, which has no size: a tmpfs of its own, capped
    a += ["--size", str(job.limits.shm_bytes), "--perms", "1777", "--tmpfs", "/dev/shm"]
    a += ["--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]  # torch counts cores here
    if job.device == "cuda":
        a += ["--ro-bind", "/sys", "/sys"]
        for dev in sorted(Path("/dev").glob("nvidia*")):
            a += ["--dev-bind-try", str(dev), str(dev)]
    a += ["--remount-ro", "/", "--chdir", str(job.dir), "--", python, *argv]
    return a


def unshare_argv(
    job: Job, argv: list[str], *, uid: int, python: str = sys.executable, runtime: list[str] | None = None
) -> list[str]:
    """The fallback without bubblewrap (root only): unshare(1) makes the namespaces, a short shell script
    builds the same private root (read-only binds, a size-capped tmpfs scratch) and chroots into it, and
    setpriv(1) drops to the job's uid with no capabilities and no-new-privileges."""
    root = job.dir / ".sandbox-root"
    binds = ["/usr", *(runtime_paths() if runtime is None else runtime), str(RUNNER_ROOT / "runner")]
    binds += [str(e) for e in job_entries(job)]
    binds += [f"/etc/{n}" for n in ETC_FILES if os.path.exists(f"/etc/{n}")]
    binds += [p for p in ("/sys/devices/system/cpu",) if os.path.exists(p)]
    links = [(os.readlink(f"/{t}"), f"/{t}") for t in TOP_LINKS if os.path.islink(f"/{t}")]
    binds += [f"/{t}" for t in TOP_LINKS if os.path.isdir(f"/{t}") and not os.path.islink(f"/{t}")]
    q = shlex.quote
    lines = [
        "set -e",
        f"R={q(str(root))}",
        "mount --make-rprivate /",
        'mount -t tmpfs -o nosuid,nodev,mode=0755 kb-root "$R"',
    ]
    for src in binds:
        kind = "-d" if os.path.isdir(src) else "-f"
        make = (
            f'mkdir -p "$R"{q(src)}'
            if kind == "-d"
            else f'mkdir -p "$R"{q(os.path.dirname(src))}; touch "$R"{q(src)}'
        )
        lines += [
            make,
            f'mount --rbind {q(src)} "$R"{q(src)}',
            f'mount -o remount,bind,ro,nosuid,nodev "$R"{q(src)}',
        ]
    for target, link in links:
        lines.append(f'ln -s {q(target)} "$R"{q(link)}')
    etc = job.dir / ".sandbox-etc"
    for name in ("passwd", "group"):
        lines += [
            f'touch "$R/etc/{name}"',
            f'mount --bind {q(str(etc / name))} "$R/etc/{name}"',
            f'mount -o remount,bind,ro,nosuid,nodev "$R/etc/{name}"',
        ]
    lines.append(f'mkdir -p "$R"{q(str(job.scratch))}')
    lines.append(
        f'mount -t tmpfs -o nosuid,nodev,size={job.limits.scratch_bytes},mode=0700,uid={uid},gid={uid} kb-scratch "$R"{q(str(job.scratch))}'
    )
    lines += [
        'mkdir -p "$R/proc" "$R/dev"',
        'mount -t proc -o nosuid,nodev,noexec proc "$R/proc"',
        'mount -t tmpfs -o nosuid,mode=0755,size=65536 kb-dev "$R/dev"',
    ]
    for dev in ("null", "zero", "full", "random", "urandom"):
        lines += [f'touch "$R/dev/{dev}"', f'mount --bind /dev/{dev} "$R/dev/{dev}"']
    lines += [
        'mkdir -p "$R/dev/shm"',
        f'mount -t tmpfs -o nosuid,nodev,size={job.limits.shm_bytes},mode=1777 kb-shm "$R/dev/shm"',
    ]
    lines += [f"hostname {HOSTNAME} 2>/dev/null || true", 'mount -o remount,bind,ro "$R"']
    enter = "cd " + q(str(job.dir)) + ' && exec "$@"'  # in the new root, as the job's uid
    # Not exec'd: this shell stays pid 1 of the namespace, so that the contestant is not (the kernel drops
    # signals such as SIGXCPU that pid 1 does not handle); it exits with 128+N when the contestant dies of N.
    lines.append(
        f'cd "$R" && {q(shutil.which("chroot") or "/usr/sbin/chroot")} "$R" /usr/bin/setpriv --reuid={uid} --regid={uid} --clear-groups '
        f"--no-new-privs --inh-caps=-all --bounding-set=-all -- /bin/sh -c {q(enter)} contestant "
        + " ".join(q(x) for x in [python, *argv])
        + " & wait $!"
    )
    return [
        "unshare",
        "--mount",
        "--net",
        "--pid",
        "--ipc",
        "--uts",
        "--cgroup",
        "--fork",
        "--kill-child",
        "--",
        "/bin/sh",
        "-c",
        "\n".join(lines),
    ]


class SandboxedProcess(subprocess.Popen):
    """bwrap's pid-1 reaper (and the fallback's pid-1 shell) reports a contestant killed by signal N as exit
    status 128+N. The judge names signals (SIGSEGV, SIGXCPU, SIGKILL ...), so turn the status back into the
    -N that Popen uses; a submission that calls os._exit(129..159) itself is then reported as killed by
    that signal."""

    def _translate(self) -> None:
        if self.returncode is not None and 128 < self.returncode < 128 + 65:
            self.returncode = -(self.returncode - 128)

    def poll(self):
        super().poll()
        self._translate()
        return self.returncode

    def wait(self, timeout=None):
        super().wait(timeout)
        self._translate()
        return self.returncode


class BwrapSandbox(Sandbox):
    name = "bwrap"
    isolated = True

    def __init__(self, tool: str | None = None):
        tool = (
            tool or settings.get("RUNNER_SANDBOX_TOOL") or ("bwrap" if shutil.which("bwrap") else "unshare")
        )
        if tool not in ("bwrap", "unshare"):
            raise ValueError(f"RUNNER_SANDBOX_TOOL must be bwrap or unshare, not {tool!r}")
        self.tool = tool
        self._lease: uids.Lease | None = None

    def served(self) -> bool:
        """Judges come from the fork server, and contestants from their stems, where bubblewrap runs
        with a leased uid (root): joining the sandbox's namespaces takes root (runner/sandbox/stem.py)."""
        return self.tool == "bwrap" and uids.can_switch_uid()

    @property
    def note(self) -> str:
        who = (
            f"a dedicated uid ({uids.uid_range().start}-{uids.uid_range().stop - 1}) leased for the job"
            if uids.can_switch_uid()
            else "the worker's own uid (the worker is not root: no dedicated uid, no process limit)"
        )
        what = (
            f"every namespace unshared (no network), a private read-only root with only the runtime and the job's "
            f"directory, a size-capped tmpfs scratch, {who}, no capabilities, rlimits on CPU, memory, file size, open files and processes, a size-capped /dev/shm"
        )
        if self.tool == "bwrap":
            return f"isolated by bubblewrap: {what}"
        return f"isolated by unshare (util-linux; bubblewrap is not installed, the fallback): {what}"

    # ---- in execute(), around the judge ------------------------------------------------------------

    def prepare(self, job_dir: Path) -> None:
        if self.tool == "bwrap" and not shutil.which("bwrap"):
            raise RuntimeError("the bwrap sandbox needs bubblewrap (Debian: apt-get install bubblewrap)")
        if self.tool == "unshare" and not (
            uids.can_switch_uid() and shutil.which("unshare") and shutil.which("setpriv")
        ):
            raise RuntimeError(
                "bubblewrap is not installed and the unshare fallback needs root and util-linux's unshare and "
                "setpriv; install bubblewrap (Debian: apt-get install bubblewrap)"
            )
        scratch = job_dir / "scratch"
        uid = os.getuid()
        if uids.can_switch_uid():
            self._lease = uids.acquire()
            uid = self._lease.uid
            os.chown(scratch, uid, uid)  # the mount point of its tmpfs; also how the judge learns the uid
            scratch.chmod(0o700)
        _account_files(job_dir, uid)
        if self.tool == "unshare":
            (job_dir / ".sandbox-root").mkdir(mode=0o700, exist_ok=True)

    def cleanup(self, job_dir: Path) -> None:
        if self._lease is None:
            return
        lease, self._lease = self._lease, None
        # Never hand the uid on while something of this job may still run (kill_all said so, or failed):
        # the lease's file then stays locked until this process ends, and acquire() kills the rest.
        if uids.kill_all(lease.uid):
            lease.release()

    # ---- in the judge -------------------------------------------------------------------------------

    def job_uid(self, job: Job) -> int | None:
        """The uid prepare() leased (it owns the scratch mount point); None without a dedicated one."""
        if not uids.can_switch_uid():
            return None
        owner = job.scratch.stat().st_uid
        if owner not in uids.uid_range():
            raise RuntimeError(
                f"{job.scratch} is not owned by a sandbox uid: prepare() did not run for this job"
            )
        return owner

    def start(self, job: Job, argv: list[str], pass_fds: tuple[int, ...], stdout: int) -> Process:
        uid = self.job_uid(job)
        if self.tool == "bwrap" and uid is not None and argv[:2] == ["-m", "runner.contestant.harness"]:
            forked = stem.take()  # a served judge's stem (runner/judge/served.py): no interpreter to start
            if forked is not None:
                return self._start_from_stem(forked, job, uid, pass_fds[0], stdout)
        return self._launch(job, argv, pass_fds, stdout)

    def _limits_and_env(self, job: Job, uid: int | None) -> tuple[list, dict[str, str]]:
        limits = rlimits(job.limits, job.device)
        if uid is not None:  # counted per uid: the job's own processes and threads only (root is exempt
            # from it, so unshare, which must start as root to mount, is bound once setpriv changed the uid)
            limits.append((resource.RLIMIT_NPROC, (job.limits.processes, job.limits.processes)))
        env = contestant_env(job, f"{RUNNER_ROOT}:{job.dir}")
        env.update(USER=USER_NAME, LOGNAME=USER_NAME)
        return limits, env

    def _launch(
        self, job: Job, argv: list[str], pass_fds: tuple[int, ...], stdout: int, python: str = sys.executable
    ) -> SandboxedProcess:
        """`python argv...` in the job's sandbox, exec'd by bwrap (or the unshare fallback)."""
        uid = self.job_uid(job)
        inside_uid = uid if uid is not None else os.getuid()
        if not (job.dir / ".sandbox-etc" / "passwd").exists():
            _account_files(job.dir, inside_uid)
        limits, env = self._limits_and_env(job, uid)
        stage = None
        if self.tool == "bwrap":
            if uid is not None:
                stage = _Stage(job.dir, [*runtime_paths(), str(RUNNER_ROOT / "runner")])
            command = bwrap_argv(
                job,
                argv,
                uid=inside_uid,
                python=python,
                bwrap=shutil.which("bwrap") or "bwrap",
                staged=stage.paths if stage else None,
            )
        else:
            command = unshare_argv(job, argv, uid=inside_uid, python=python)

        def pre_exec() -> None:
            first_for_the_oom_killer()  # still root: the contestant cannot undo it
            if stage is not None and uid is not None:  # a stage exists only for a leased uid
                stage.mount()  # still root, in a mount namespace of its own
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            uids.join_fresh_session_keyring()  # not the worker's, which every job would share
            die_with_parent()  # after the uid change, which clears it
            for which, value in limits:
                resource.setrlimit(which, value)

        return SandboxedProcess(
            command,
            cwd="/",
            env=env,
            pass_fds=pass_fds,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=pre_exec,
        )

    def _start_from_stem(
        self, forked: stem.Stem, job: Job, uid: int, control_fd: int, stdout: int
    ) -> ForkedContestant:
        """The sandbox made by bwrap exactly as for an exec'd contestant, with `sleep` as its program (the
        holder); the stem joins it and forks the contestant there (runner/sandbox/stem.py)."""
        limits, env = self._limits_and_env(job, uid)
        sleep = shutil.which("sleep") or "/usr/bin/sleep"
        holder = self._launch(job, ["infinity"], (), subprocess.DEVNULL, python=sleep)
        inside = _wait_for_program(holder, "sleep")
        reaper = program = -1
        try:
            reaper = _namespace_reaper(inside)
            program = os.pidfd_open(inside)
            if not _is_program_of(inside, holder.pid):
                raise RuntimeError("the sandbox's program ended before the contestant could join it")
            stem.become(
                forked,
                {"uid": uid, "dir": str(job.dir), "env": env, "rlimits": limits},
                program,
                control_fd,
                stdout,
            )
        except BaseException:
            if reaper >= 0:
                os.close(reaper)
            holder.kill()
            holder.wait()
            raise
        finally:
            if program >= 0:
                os.close(program)
        return ForkedContestant(forked.pid, holder, reaper)


def _wait_for_program(holder: subprocess.Popen, comm: str, timeout_s: float = 30.0) -> int:
    """The pid of the holder's program once bwrap has built the sandbox and exec'd it."""
    import time

    from runner.sandbox import freeze

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for pid in freeze.descendants(holder.pid):
            try:
                with open(f"/proc/{pid}/comm", "rb") as f:
                    if f.read().strip() == comm.encode():
                        return pid
            except OSError:
                pass
        if holder.poll() is not None:
            raise RuntimeError(f"bubblewrap exited with status {holder.returncode} before the sandbox was up")
        time.sleep(0.001)
    holder.kill()
    raise RuntimeError(f"bubblewrap did not start the sandbox within {timeout_s:g} s")


def _is_program_of(pid: int, holder: int) -> bool:
    """Whether `pid` is still the holder's program: checked after a pidfd was opened on it, so that the
    pidfd holds that process and no other that took its pid."""
    from runner.sandbox import freeze

    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().strip() == b"sleep" and pid in freeze.descendants(holder)
    except OSError:
        return False


def _namespace_reaper(pid: int) -> int:
    """A pidfd on pid 1 of the pid namespace `pid` lives in (bwrap's init above its program), found by
    walking up the parents. The holder's bwrap has not reaped it, so its pid is not yet anyone else's. A
    sandbox without a pid namespace of its own is refused: the walk would reach the judge's own pid 1."""
    while True:
        status = _proc_status(pid)
        nspid = status["NSpid"].split()
        if len(nspid) < 2:
            raise RuntimeError("the sandbox has no pid namespace of its own")
        if nspid[-1] == "1":
            return os.pidfd_open(pid)
        pid = int(status["PPid"])


def _proc_status(pid: int) -> dict[str, str]:
    """The fields of /proc/<pid>/status. Its Name is the process's own choice, in any bytes: decoded so
    that no name can make the judge fail (found by an attack review); the kernel's own fields are ASCII."""
    with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as f:
        return dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)


def _reap_sandbox_orphans() -> None:
    """Reap this process's children that died inside a pid namespace below this one: a contestant whose
    stem died before it, handed to the judge (a subreaper). The judge's other children live in its own
    pid namespace, so their exit statuses stay for their owners."""
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                children = [int(pid) for pid in f.read().split()]
        except OSError:
            continue
        for pid in children:
            try:
                status = _proc_status(pid)
            except OSError:
                continue
            if status["State"].strip().startswith("Z") and len(status["NSpid"].split()) > 1:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass


class ForkedContestant:
    """A contestant forked by the stem, seen from the judge like the Popen of an exec'd one. The stem is
    the judge's child and exits with the contestant's status (128+N for a death by signal N, as bwrap's
    reaper reports it). When it has, the sandbox is torn down before poll() reports it: the namespace's
    pid 1 is killed and waited for, and the kernel lets pid 1 go only once every other process of its
    namespace has, so nothing the contestant forked still runs when the judge reads it as gone (its last
    look at the outputs is skipped then)."""

    def __init__(self, pid: int, holder: subprocess.Popen, reaper: int):
        self.pid, self.holder = pid, holder
        self.stem = os.pidfd_open(pid)  # signals reach the stem, never a later owner of its pid
        self.reaper = reaper  # a pidfd on the namespace's pid 1
        self.returncode: int | None = None
        # The judge's thread polls while the output reader's may kill: one at a time, so that no pidfd is
        # used as it is closed, and a kill waits for a teardown under way.
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        with self._lock:
            if self.returncode is None:
                try:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                except ChildProcessError:
                    pid, status = self.pid, 0
                if pid:
                    code = os.waitstatus_to_exitcode(status)
                    # Set before the teardown: the status is known, and a teardown that fails fails once.
                    self.returncode = -(code - 128) if 128 < code < 128 + 65 else code
                    self._tear_down()
            return self.returncode

    def _tear_down(self, timeout_s: float = 10.0) -> None:
        import select
        import time

        self._kill_namespace()
        self.holder.kill()
        self.holder.wait()
        # A pidfd reads as ready once its process has exited; pid 1 of a namespace exits last of all, once
        # every other has been reaped. A contestant whose stem was killed first is the judge's to reap (the
        # judge is a subreaper): until it is, pid 1 waits.
        deadline = time.monotonic() + timeout_s
        while not select.select([self.reaper], [], [], 0.005)[0]:
            _reap_sandbox_orphans()
            if time.monotonic() > deadline:
                raise RuntimeError(f"the sandbox's processes did not end within {timeout_s:g} s of SIGKILL")
        for fd in (self.reaper, self.stem):
            os.close(fd)
        self.reaper = self.stem = -1

    def _kill_namespace(self) -> None:
        if self.reaper >= 0:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.reaper, signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired("runner.contestant.harness", timeout or 0)
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        return code

    def send_signal(self, sig: int) -> None:
        with self._lock:
            if self.stem >= 0:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(self.stem, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)
        with self._lock:
            self._kill_namespace()  # whatever the contestant forked
            self.holder.kill()


class _Stage:
    """bubblewrap, run as the job's uid, opens the paths it binds as that uid, and the runtime may lie where
    that uid cannot go (a Python under /root, mode 0700). So the launcher, still root, makes a mount
    namespace of its own (the host's mounts are not touched), bind-mounts each runtime path onto an empty
    folder of the job directory, and only then drops to the job's uid and starts bwrap, which binds them
    from there to their own paths, read-only."""

    CLONE_NEWNS, MS_BIND, MS_REC, MS_PRIVATE = 0x00020000, 4096, 16384, 1 << 18

    def __init__(self, job_dir: Path, paths: list[str]):
        root = job_dir / ".sandbox-runtime"
        root.mkdir(mode=0o755, exist_ok=True)
        self.paths: dict[str, str] = {}
        for i, path in enumerate(paths):
            target = root / str(i)
            target.mkdir(mode=0o755, exist_ok=True)
            self.paths[path] = str(target)

    def mount(self) -> None:
        """In the child, before exec."""
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)

        def check(rc: int, what: str) -> None:
            if rc != 0:
                raise OSError(ctypes.get_errno(), f"sandbox launcher: {what} failed")

        check(libc.unshare(self.CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        check(libc.mount(b"none", b"/", None, self.MS_REC | self.MS_PRIVATE, None), "making / private")
        for source, target in self.paths.items():
            check(
                libc.mount(source.encode(), target.encode(), None, self.MS_BIND | self.MS_REC, None),
                f"binding {source}",
            )
