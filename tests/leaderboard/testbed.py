"""The platform's test bed: the real services the tests run against, and how to reach them.

- Database: PostgreSQL at 127.0.0.1:5432 when it answers (what production runs), else SQLite; tests that
  need PostgreSQL skip with the reason.
- Broker: a private redis-server on a free port, started by the tests (so that a test can restart it),
  never the shared one on 6379.
- Workers: real `celery worker` processes on the test database and the private Redis.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CORRECT_VECTORADD = ROOT / "problems" / "vectoradd" / "templates" / "pytorch.py"
POSTGRES_URL = os.environ.get("KERNELBOARD_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test")


def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_STABLE_LOW = 10_000
_stable_taken: set[int] = set()


def stable_port() -> int:
    """A loopback port for a server that a test stops and starts again (the broker, a private PostgreSQL or
    RabbitMQ): below the kernel's ephemeral range, so that while it is down no bind to port 0 (free_port(),
    any outgoing connection) of another test process can take it, and the server come back to find its port
    another's (it happened with two test processes side by side: a Redis that could not rebind, and its
    tests talking to the other process's server). Each process starts its search at a point of its own."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            high = int(f.read().split()[0])  # the ephemeral range's first port
    except (OSError, ValueError, IndexError):
        high = 32768
    span = high - _STABLE_LOW - 1  # a port p and p + 1 (RabbitMQ's distribution port) both below `high`
    start = (os.getpid() * 97) % span
    for i in range(span):
        port = _STABLE_LOW + (start + i) % span
        if port in _stable_taken or port + 1 in _stable_taken:
            continue
        try:
            for p in (port, port + 1):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        _stable_taken.update((port, port + 1))
        return port
    raise RuntimeError(f"no free loopback port between {_STABLE_LOW} and {high}")


def wait_for(predicate: Callable[[], object], *, timeout_s: float, what: str, every_s: float = 0.2):
    """Poll `predicate` until it returns something true, and return that; fail the test after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(every_s)


def vectoradd_source(note: str = "") -> str:
    """The correct vectoradd kernel; `note` makes its text (and sha256) unique."""
    return CORRECT_VECTORADD.read_text() + (f"\n# {note}\n" if note else "")


def make_submission(
    user,
    *,
    source: str | None = None,
    mode: str = "test",
    device_kind: str = "cpu",
    problem: str = "vectoradd",
    language: str = "pytorch",
):
    """A submission made through the service, as the API makes one: a correct vectoradd unless told."""
    from leaderboard.submissions.services import submission_create

    return submission_create(
        user=user,
        problem=problem,
        device_kind=device_kind,
        mode=mode,
        language=language,
        source=vectoradd_source() if source is None else source,
    )


def claim(submission, worker: str = "cpu@fixture"):
    """Claim the submission as a worker would; the claimed row (with its attempt and start)."""
    from leaderboard.submissions.services import submission_claim

    return submission_claim(submission_id=submission.pk, worker=worker)


def report_on(claimed, report, *, worker: str = "cpu@fixture", attempt: int | None = None):
    """A worker's report on a claimed submission (for the claim's own attempt unless told), with a report of
    the test's choosing (no runner): submission_finish's answer, the state it ended in, or None where the
    worker no longer held that attempt."""
    from leaderboard.submissions.services import submission_finish

    return submission_finish(
        submission_id=claimed.pk,
        worker=worker,
        attempt=claimed.attempts if attempt is None else attempt,
        report=report,
        started_at=claimed.started_at,
    )


def finish(claimed, report, worker: str = "cpu@fixture"):
    """Finish a claimed submission with a report of the test's choosing (no runner); the fresh row."""
    report_on(claimed, report, worker=worker)
    claimed.refresh_from_db()
    return claimed


# A cell a spreadsheet would run, as a hostile contestant would name an operator: the judge neutralises it.
FORMULA_OPERATOR = '=HYPERLINK("http://evil")'


def profile_report(
    cases: tuple[str, ...] = ("vectoradd[size=256]", "vectoradd[size=4096]"), *, verdict="passed"
):
    """A profile run's RunReport whose tables the judge's own code made (runner/judge/profile.py) from the
    reply a contestant sends, one with a formula for an operator's name; no judge process."""
    from runner.judge.profile import profile_of
    from runner.spec import CaseResult, RunReport
    from runner.vocabulary import PROFILE_CALLS

    reply = {
        "profile": {
            "rows": [
                {"name": "aten::add", "calls": PROFILE_CALLS, "self_cpu_us": 12.5, "cpu_us": 14.0},
                {"name": FORMULA_OPERATOR, "calls": 1, "self_cpu_us": 1.0, "cpu_us": 1.0},
                {"name": "<script>alert(1)</script>", "calls": 1, "self_cpu_us": 0.5, "cpu_us": 0.5},
            ]
        }
    }
    outputs = "checked and right" if verdict == "passed" else "WRONG (wrong output on call 1)"
    return RunReport(
        verdict=verdict,
        message="" if verdict == "passed" else "vectoradd[size=256]: wrong output",
        problem="vectoradd",
        mode="profile",
        device="cpu",
        cases=[CaseResult(id=c, kind="benchmark", status=verdict) for c in cases],
        profiles=[profile_of(c, PROFILE_CALLS, outputs, reply, "cpu") for c in cases],
    )


WRONG_VECTORADD = """
import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    A, B, C = data
    return torch.sub(A, B, out=C)  # wrong: A - B
"""

VAR_DIR = Path(tempfile.mkdtemp(prefix="kb-tests-var-"))
atexit.register(shutil.rmtree, VAR_DIR, True)
REDIS_PORT = stable_port()  # restarted by the broker's chaos tests
REDIS_URL = f"redis://127.0.0.1:{REDIS_PORT}/0"


def configure_django() -> None:
    """Point the settings at the test services before Django is set up (unless someone set it up first)."""
    import django
    from django.conf import settings

    if settings.configured:
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
    # Most tests make submissions with no worker running (the services judge them, or none does): the refusal
    # of a device kind that no worker serves is off in this process, and on in the tests of it (test_nothing_traps.py)
    # and wherever the platform runs as a user starts it (Serve).
    chosen = {
        "KERNELBOARD_VAR_DIR": str(VAR_DIR),
        "CELERY_BROKER_URL": REDIS_URL,
        "SUBMISSION_REFUSE_UNSERVED": "false",
        # Tests that make a run and read its rank at once: a leader's second judging is off in this process,
        # and on in its own tests (test_leaders_judged_again.py) and the compose stack's.
        "LEADERS_JUDGED_AGAIN": "0",
    }
    if "DATABASE_URL" not in os.environ and answers("127.0.0.1", 5432):
        chosen["DATABASE_URL"] = POSTGRES_URL
    saved = {k: os.environ.get(k) for k in chosen}
    os.environ.update(chosen)
    try:
        django.setup()
        default = settings.DATABASES["default"]
        if default["ENGINE"].endswith("postgresql"):
            # A test database of this run's own: two runs on one server (two developers) do not collide.
            default.setdefault("TEST", {})["NAME"] = f"test_kernelboard_{os.getpid()}"
    finally:  # the settings are read: leave the environment of the rest of the session as it was
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def database_url() -> str:
    """The URL of the test database, for worker processes (PostgreSQL only)."""
    from django.db import connection

    s = connection.settings_dict
    if connection.vendor != "postgresql":
        pytest.skip("worker processes share the test database only on PostgreSQL, which did not answer")
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@dataclass
class RedisServer:
    port: int
    dir: Path
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port)

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self._pong, timeout_s=10, what=f"redis-server on port {self.port}")
        if self.proc.poll() is not None:  # another server answered on the port: this one could not bind
            raise AssertionError(f"redis-server on port {self.port} exited: the port is another server's")

    def _pong(self) -> bool:
        try:
            return bool(self.client().ping())
        except Exception:
            return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

    def restart(self) -> None:
        """Stop and start again. Without persistence, every message the broker held is gone."""
        self.stop()
        self.start()


_private_redis: RedisServer | None = None


def private_redis() -> RedisServer:
    """The tests' private Redis (the broker at REDIS_URL): one per test process, whichever conftest's fixture
    asks. tests/agentruns imports the platform's fixtures, a second copy of the session fixture, which
    started a second server on the same port: it could not bind, the first answered in its place, and a
    chaos test's `stop()` then stopped nothing (the broker stayed up through its "outage")."""
    global _private_redis
    if _private_redis is None:
        server = RedisServer(REDIS_PORT, Path(tempfile.mkdtemp(prefix="kb-tests-redis-")))
        server.start()
        atexit.register(shutil.rmtree, server.dir, True)
        atexit.register(server.stop)  # runs first
        _private_redis = server
    return _private_redis


@dataclass
class WorkerProcess:
    name: str
    proc: subprocess.Popen
    log: Path

    @property
    def hostname(self) -> str:
        return f"{self.name}@test"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_until_ready(self) -> None:
        wait_for(
            lambda: " ready." in self.output() or self.proc.poll() is not None,
            timeout_s=60,
            what=f"worker {self.name} to start",
        )
        assert self.proc.poll() is None, f"worker {self.name} exited:\n{self.output()[-3000:]}"

    def kill(self) -> None:
        """SIGKILL the worker and everything in its session (its pool process)."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)


@dataclass
class Workers:
    """Starts real Celery workers on the test database and the private broker; stops them after the test."""

    broker_url: str
    log_dir: Path
    started: list[WorkerProcess] = field(default_factory=list)

    def env(self, **overrides: str) -> dict[str, str]:
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": self.broker_url,
            "KERNELBOARD_VAR_DIR": str(VAR_DIR),
            "HEARTBEAT_INTERVAL_S": "0.5",
            "HEARTBEAT_TIMEOUT_S": "3",
            "LEADERS_JUDGED_AGAIN": "0",  # as in this process (configure_django): ranks are read at once
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)]),
            **overrides,
        }

    def start(
        self,
        name: str,
        *,
        concurrency: int = 1,
        instant: bool = False,
        wait: bool = True,
        queues: str = "cpu",
        **env: str,
    ) -> WorkerProcess:
        """A worker for the cpu queue (or `queues`, comma-separated: "cpu,cpu.explore"). `instant` gives it
        the fast trusted judge of instant_judge.py; `wait=False` returns before it is ready (start several,
        then wait_until_ready each)."""
        if instant:
            env.setdefault("RUNNER_EXECUTE", "instant_judge:execute")
        log = self.log_dir / f"worker-{name}.log"
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "leaderboard.celery",
                "worker",
                "--queues",
                queues,
                "--concurrency",
                str(concurrency),
                "--hostname",
                f"{name}@test",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel",
                "INFO",
            ],
            cwd=ROOT,
            env=self.env(**env),
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        worker = WorkerProcess(name, proc, log)
        self.started.append(worker)
        if wait:
            worker.wait_until_ready()
        return worker

    def stop_all(self) -> None:
        for worker in self.started:  # all at once: a warm shutdown takes a few seconds each
            if worker.proc.poll() is None:
                worker.proc.send_signal(signal.SIGTERM)
        for worker in self.started:
            worker.stop()


@dataclass
class Persona:
    user: object
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def make_persona(username: str, *, is_agent: bool = False) -> Persona:
    from leaderboard.accounts.services import api_token_create, user_get_or_create

    user, _ = user_get_or_create(username=username, is_agent=is_agent)
    _, token = api_token_create(user=user)
    return Persona(user, token)


def _postgres_bin(name: str) -> str | None:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda p: int(p.parts[-3]))
    return str(found[-1]) if found else shutil.which(name)


@dataclass
class PostgresServer:
    """A PostgreSQL cluster of the test's own (initdb in a temporary folder, a free loopback port), so that a
    test can stop, kill and restart it; never the shared server on 5432."""

    port: int
    dir: Path

    @staticmethod
    def available() -> bool:
        return bool(_postgres_bin("initdb") and _postgres_bin("pg_ctl"))

    def _as_owner(self, argv: list[str]) -> list[str]:
        # PostgreSQL refuses to run as root: as root, run it as the postgres user, who owns the folder.
        return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv

    @property
    def data(self) -> Path:
        return self.dir / "data"

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def init(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        subprocess.run(
            self._as_owner(
                [_postgres_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync"]
            ),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c synchronous_commit=off"
        )
        subprocess.run(
            self._as_owner(
                [
                    _postgres_bin("pg_ctl"),
                    "-D",
                    str(self.data),
                    "-o",
                    options,
                    "-l",
                    str(self.dir / "log"),
                    "-w",
                    "-t",
                    "30",
                    "start",
                ]
            ),
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def stop(self, mode: str = "fast") -> None:
        """`fast` closes every connection (a restart); `immediate` is a crash without a shutdown checkpoint."""
        subprocess.run(
            self._as_owner([_postgres_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def restart(self, down_s: float = 0.0) -> None:
        self.stop()
        time.sleep(down_s)
        self.start()

    def execute(self, sql: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(sql)


@dataclass
class RabbitServer:
    """A RabbitMQ node of the test's own: its own node name, AMQP port, distribution port, epmd (started
    here, on a port of its own) and data folder, all on loopback; never the shared node on 5672."""

    port: int
    dir: Path
    epmd: subprocess.Popen | None = None
    proc: subprocess.Popen | None = None

    @staticmethod
    def available() -> bool:
        return bool(shutil.which("rabbitmq-server") and shutil.which("epmd"))

    @property
    def url(self) -> str:
        return f"amqp://guest:guest@127.0.0.1:{self.port}//"

    def _env(self) -> dict[str, str]:
        return {
            **os.environ,
            "RABBITMQ_NODENAME": f"kbchaos{self.port}@localhost",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_DIST_PORT": str(self.port + 1),
            "ERL_EPMD_PORT": str(self.epmd_port),
            "RABBITMQ_MNESIA_BASE": str(self.dir / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.dir / "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.dir / "plugins"),
            "RABBITMQ_CONFIG_FILE": str(self.dir / "rabbitmq"),
            "RABBITMQ_PID_FILE": str(self.dir / "pid"),
        }

    def start(self) -> None:
        if self.epmd is None:
            self.dir.mkdir(parents=True, exist_ok=True)
            (self.dir / "plugins").write_text("[].\n")
            if os.geteuid() == 0:  # the Debian wrapper runs the node as the rabbitmq user
                for path in (self.dir, self.dir / "plugins"):
                    shutil.chown(path, "rabbitmq", "rabbitmq")
            self.epmd_port = stable_port()
            self.epmd = subprocess.Popen(
                ["epmd", "-port", str(self.epmd_port), "-address", "127.0.0.1"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.proc = subprocess.Popen(
            ["rabbitmq-server"],
            env=self._env(),
            stdout=(self.dir / "out.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(self._answers, timeout_s=60, what=f"rabbitmq-server on port {self.port}", every_s=0.3)

    def _answers(self) -> bool:
        import kombu

        if self.proc.poll() is not None:
            raise AssertionError(f"rabbitmq-server exited; see {self.dir / 'out.log'}")
        try:
            with kombu.Connection(self.url, connect_timeout=1) as conn:
                conn.connect()
            return True
        except Exception:
            return False

    def stop(self, *, lose_data: bool = False) -> None:
        """Stop the node; with `lose_data`, its messages and queues are gone too (a node rebuilt)."""
        # The wrapper hands over to the node (as the rabbitmq user, in a session of its own): the node's pid
        # is in its pid file.
        try:
            node = int((self.dir / "pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            node = None
        if node is not None:
            try:
                os.kill(node, signal.SIGTERM)  # a clean shutdown of the node
                wait_for(lambda: not Path(f"/proc/{node}").exists(), timeout_s=30, what="rabbitmq to stop")
            except ProcessLookupError:
                pass
            except AssertionError:
                os.kill(node, signal.SIGKILL)
            (self.dir / "pid").unlink(missing_ok=True)
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc:
            self.proc.wait(timeout=10)
        if lose_data:
            shutil.rmtree(self.dir / "mnesia", ignore_errors=True)

    def close(self) -> None:
        self.stop()
        if self.epmd and self.epmd.poll() is None:
            self.epmd.kill()
            self.epmd.wait(timeout=10)


class Serve:
    """`manage.py serve` on its own var/ folder (SQLite, the filesystem broker) in a subprocess, its output
    collected by a thread: the embedded platform as a user starts it, for the end-to-end and browser tests."""

    def __init__(self, var: Path, port: int, *, env: dict[str, str] | None = None, args: tuple = ()) -> None:
        import threading

        self.var, self.port, self.lines = var, port, []
        # The tests' own database and broker settings must not reach it: it makes its own, as on a fresh machine.
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_ENV", "ALLOWED_HOSTS")
        }
        self.env.update(
            {
                "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
                "KERNELBOARD_VAR_DIR": str(var),
                "SWEEP_INTERVAL_S": "1",
                **(env or {}),
            }
        )
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port), *args],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True).start()

    @property
    def output(self) -> str:
        return "".join(self.lines)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_until_running(self) -> None:
        wait_for(
            lambda: "Kernelboard is running at" in self.output or self.proc.poll() is not None,
            timeout_s=120,
            what="manage.py serve to start",
        )
        assert self.proc.poll() is None, self.logs()

    def manage(self, *args: str) -> str:
        """A management command on this platform's data; its standard output."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def logs(self) -> str:
        """Its output and the tails of the web and worker logs, for a failing test's message."""
        parts = [self.output]
        for name in ("worker.log", "web.log"):
            log = self.var / "log" / name
            if log.exists():
                parts.append(f"--- {name} ---\n" + log.read_text(errors="replace")[-4000:])
        return "\n".join(parts)

    def stop(self, sig: int = signal.SIGINT) -> int:
        """Stop it as a user would (Ctrl-C by default); its exit status."""
        self.proc.send_signal(sig)
        return self.proc.wait(timeout=60)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
