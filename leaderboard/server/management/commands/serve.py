"""`manage.py serve --port PORT`: the whole platform on one machine, with no other server.

It migrates the database and syncs the problems, then runs gunicorn (the web), one Celery worker for the
cpu queue, and the sweeper (a loop in this process). On the embedded default that is SQLite under var/ and
Celery's filesystem broker under var/broker/. Ctrl-C (SIGINT) or SIGTERM stops everything.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from leaderboard.problems.services import problem_sync_all
from leaderboard.submissions.models import Worker
from leaderboard.submissions.readiness import worker_refusal
from leaderboard.submissions.services import submission_sweep
from leaderboard.submissions.sweeper import Sweeper
from runner.vocabulary import EXPLORE, judging_queue

# The app is loaded once, before the workers fork; no control socket (its default path is shared by every
# gunicorn of the user, so two platforms on one machine would fight over it).
WEB_OPTIONS = "--preload --no-control-socket --timeout 60 --graceful-timeout 5".split()
# One judge at a time (the machine's cores belong to it), no broker chatter between workers.
WORKER_OPTIONS = (
    "--concurrency 1 --without-gossip --without-mingle --without-heartbeat --loglevel INFO".split()
)


def _stop_with_parent() -> None:
    """In a child before exec (Linux): SIGTERM it if `serve` dies without stopping it, even by SIGKILL."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Stop:
    """The word to stop, given by a signal handler. Not a threading.Event: a handler runs in the main thread
    wherever that thread was, and Event.set takes a lock that Event.wait holds for a moment, so Ctrl-C could
    land there and wait forever on its own thread (it did: `serve` ignored SIGTERM and Ctrl-C until killed).
    A flag and a pipe take no lock; the waits select on the pipe, which is also the signals' wakeup fd: a
    signal that lands between the flag's check and the select still ends the wait (Python runs a handler
    only between bytecodes, so without it the select slept its whole timeout; an attack review measured
    33 waits of 3,000)."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._set = False

    def set(self) -> None:
        self._set = True
        if self._write < 0:  # closed: the flag is the word
            return
        try:
            os.write(self._write, b"!")
        except BlockingIOError:  # the pipe is full of earlier words: one is enough
            pass
        except BrokenPipeError:  # a signal that lands inside close(), once the read end is gone
            pass

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float) -> bool:
        if not self._set:
            select.select([self._read], [], [], timeout)
        return self._set

    def listen(self) -> int:
        """Make this the process's signal wakeup fd. Returns the one it replaces, for close()."""
        return signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)

    def close(self, wakeup_fd: int = -1) -> None:
        signal.set_wakeup_fd(wakeup_fd)
        # The handler may run anywhere in here: it must never write to a closed descriptor, whose number
        # the next open may reuse. It sees -1 from here on, or the pipe still open (its read end perhaps
        # gone, which set() ignores).
        write, self._write = self._write, -1
        os.close(self._read)
        os.close(write)


@dataclass
class Child:
    name: str
    argv: list[str]
    log: Path
    proc: subprocess.Popen | None = field(default=None, repr=False)

    def start(self, env: dict[str, str]) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=settings.BASE_DIR,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches `serve` only; it stops the children in order
                preexec_fn=_stop_with_parent if sys.platform == "linux" else None,
            )

    def exited(self) -> int | None:
        return self.proc.poll() if self.proc else None

    def signal(self, sig: int) -> None:
        try:
            self.proc.send_signal(sig)
        except ProcessLookupError:
            pass

    def kill_group(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # its own session: the pool, the judges it started
        except (ProcessLookupError, PermissionError):
            pass


class Command(BaseCommand):
    help = (
        "Run the platform here: the web (gunicorn), one Celery worker for a device kind's queue, and the "
        "sweeper. Migrates and syncs problems first. Ctrl-C stops everything."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--web-workers", type=int, default=2, help="gunicorn worker processes")
        parser.add_argument(
            "--device-kind",
            default="cpu",
            choices=settings.DEVICE_KINDS,
            help="the queue the worker judges (default cpu)",
        )
        parser.add_argument(
            "--grace",
            type=float,
            default=10.0,
            help="seconds to let a running judge finish on Ctrl-C before it is killed",
        )

    def handle(self, *args, host, port, web_workers, device_kind, grace, **options):
        log_dir = settings.VAR_DIR / "log"
        log_dir.mkdir(parents=True, exist_ok=True)
        self._check_port_free(host, port)
        refused = worker_refusal([device_kind])  # the worker would exit saying this; say it before starting
        if refused:
            raise CommandError(refused)

        call_command("migrate", interactive=False, verbosity=0)
        for synced in problem_sync_all():
            self.stdout.write(f"problem {synced.name}: {synced.change}, version {synced.version}")
        if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
            # One machine, and no worker is running yet: whatever is `running` was left by the last run, and
            # a queued id that the last worker had taken but not started is gone from the broker's folder.
            # Every queued id is sent again (a duplicate judges nothing).
            orphans = submission_sweep(heartbeat_timeout_s=0, requeue_after_s=0)
            if orphans.requeued or orphans.ended:
                self.stdout.write(f"{orphans.requeued} submissions left running last time are queued again")

        env = {
            **os.environ,
            "KERNELBOARD_VAR_DIR": str(settings.VAR_DIR),
            "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "leaderboard.settings"),
        }
        py = sys.executable
        worker_name = f"{device_kind}@{socket.gethostname()}"
        children = [
            Child(
                "web",
                [
                    py,
                    "-m",
                    "gunicorn",
                    "leaderboard.wsgi:application",
                    *WEB_OPTIONS,
                    "--bind",
                    f"{host}:{port}",
                    "--workers",
                    str(web_workers),
                    "--access-logfile",
                    str(log_dir / "web-access.log"),
                ],
                log_dir / "web.log",
            ),
            Child(
                "worker",
                [
                    py,
                    "-m",
                    "celery",
                    "-A",
                    "leaderboard.celery",
                    "worker",
                    *WORKER_OPTIONS,
                    "--queues",
                    # ranked first, then the exploration tier's candidates (docs/platform.md)
                    f"{device_kind},{judging_queue(device_kind, EXPLORE)}",
                    "--hostname",
                    worker_name,
                ],
                log_dir / "worker.log",
            ),
        ]

        stop = Stop()
        signals_seen = []

        def on_signal(signum, frame):
            signals_seen.append(signum)
            stop.set()
            if len(signals_seen) > 1:  # a second Ctrl-C: no more waiting
                for child in children:
                    if child.proc:
                        child.kill_group()

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        wakeup_fd = stop.listen()
        status = 0
        try:
            starting = timezone.now()
            for child in children:
                child.start(env)
            self._wait_until_listening(host, port, children, stop)
            # The site refuses submissions for a device kind that no worker serves: running means served.
            self._wait_until_serving(worker_name, starting, children, stop)
            if not stop.is_set():
                url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
                self.stdout.write(self.style.SUCCESS(f"Kernelboard is running at {url}"))
                self.stdout.write(
                    f"  API {url}api/ (docs {url}api/docs); a worker judges the {device_kind} queues "
                    f"(sandbox {settings.RUNNER_SANDBOX}); logs in {log_dir}\n"
                    f"  an API token: sign up at {url}signup/, then make one at {url}account/tokens/\n"
                    "Press Ctrl-C to stop."
                )
                self.stdout.flush()
            status = self._supervise(children, stop)
        except CommandError as exc:
            self.stderr.write(str(exc))
            status = 1
        finally:
            self._stop(children, grace)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            stop.close(wakeup_fd)
        if status:
            sys.exit(status)
        self.stdout.write("Stopped.")

    def _check_port_free(self, host: str, port: int) -> None:
        try:
            with socket.create_server((host, port), reuse_port=False):
                pass
        except OSError as exc:
            raise CommandError(
                f"Cannot listen on {host}:{port} ({exc.strerror}); choose another --port."
            ) from None

    def _wait_until_listening(self, host, port, children, stop, timeout_s=90.0) -> None:
        probe = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/healthz"
        deadline = time.monotonic() + timeout_s
        while not stop.is_set():
            self._raise_if_exited(children)
            try:
                with urllib.request.urlopen(probe, timeout=2):
                    return
            except urllib.error.HTTPError:  # it answers; a status is a matter for its logs
                return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise CommandError(
                    f"The web server did not answer within {timeout_s:g} s; see {children[0].log}"
                )
            stop.wait(0.2)

    def _wait_until_serving(self, name, since, children, stop, timeout_s=90.0) -> None:
        """Until the worker has recorded itself (its first beat, leaderboard/submissions/workers.py)."""
        deadline = time.monotonic() + timeout_s
        while not stop.is_set():
            self._raise_if_exited(children)
            if Worker.objects.filter(name=name, beat_at__gte=since, stopped_at__isnull=True).exists():
                return
            if time.monotonic() > deadline:
                raise CommandError(f"The worker did not start within {timeout_s:g} s; see {children[1].log}")
            stop.wait(0.2)

    def _raise_if_exited(self, children) -> None:
        for child in children:
            code = child.exited()
            if code is not None:
                raise CommandError(f"The {child.name} process stopped (exit status {code}); see {child.log}")

    def _supervise(self, children, stop) -> int:
        """Sweep every SWEEP_INTERVAL_S until a signal; a child that dies, or a database that does not answer
        for SWEEP_GIVE_UP_S, stops the platform with an error (its supervisor restarts it)."""
        sweeper = Sweeper(say=self._say)
        while not stop.is_set():
            try:
                self._raise_if_exited(children)
            except CommandError as exc:
                self.stderr.write(str(exc))
                return 1
            sweeper.round()
            if sweeper.gave_up():
                self.stderr.write(
                    f"The database has not answered for {sweeper.give_up_after_s:g} s; stopping everything."
                )
                return 1
            stop.wait(sweeper.interval_s)
        return 0

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()

    def _stop(self, children, grace: float) -> None:
        running = [c for c in children if c.proc and c.exited() is None]
        if not running:
            return
        self.stdout.write(f"Stopping (a running judge gets up to {grace:g} s to finish)...")
        self.stdout.flush()
        for child in running:
            child.signal(signal.SIGTERM)  # gunicorn: graceful; celery: warm shutdown
        deadline = time.monotonic() + grace
        for child in running:
            try:
                child.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for child in running:
            child.kill_group()  # whatever is left of it: pool processes, judges
            child.proc.wait()
