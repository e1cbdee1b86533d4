"""Fixtures of the chaos tests: a PostgreSQL cluster of their own that a test may stop, kill and restart,
with the platform's tables migrated once into a template, and a fresh database from it per test.

The test process itself talks to that database (its default connection is pointed there for the test and
back afterwards), and so do the workers and sweepers it starts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import testbed

TEMPLATE = "kb_chaos_template"


def _point_default_at(values: dict) -> dict:
    from django.db import connections

    connections["default"].close()
    settings_dict = connections.settings["default"]
    assert connections["default"].settings_dict is settings_dict  # every thread's connection reads this dict
    saved = {k: settings_dict.get(k) for k in values}
    settings_dict.update(values)
    return saved


@pytest.fixture(scope="session")
def private_postgres(django_db_blocker):
    if not testbed.PostgresServer.available():
        pytest.skip(
            "PostgreSQL's initdb and pg_ctl are not installed: the chaos tests run a cluster of their own"
        )
    from django.core.management import call_command
    from django.db import connections

    server = testbed.PostgresServer(testbed.stable_port(), Path(tempfile.mkdtemp(prefix="kb-chaos-pg-")))
    server.init()
    server.start()
    server.execute(f"CREATE DATABASE {TEMPLATE}")
    with django_db_blocker.unblock():
        saved = _point_default_at(
            {"HOST": "127.0.0.1", "PORT": server.port, "NAME": TEMPLATE, "USER": "postgres", "PASSWORD": ""}
        )
        try:
            call_command("migrate", interactive=False, verbosity=0)
            from leaderboard.problems.services import problem_sync_all

            problem_sync_all()
        finally:
            connections["default"].close()
            _point_default_at(saved)
    yield server
    server.stop("immediate")
    shutil.rmtree(server.dir, ignore_errors=True)


@pytest.fixture
def chaos_db(private_postgres, django_db_blocker, request):
    """A fresh database cloned from the template, the default connection's for this test."""
    from django.db import connections

    name = f"kb_chaos_{os.getpid()}_{abs(hash(request.node.nodeid)) % 10**8}"
    private_postgres.execute(f"DROP DATABASE IF EXISTS {name}")
    private_postgres.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
    with django_db_blocker.unblock():
        saved = _point_default_at(
            {
                "HOST": "127.0.0.1",
                "PORT": private_postgres.port,
                "NAME": name,
                "USER": "postgres",
                "PASSWORD": "",
            }
        )
        try:
            yield private_postgres
        finally:
            try:
                connections["default"].close()
            except Exception:
                pass
            _point_default_at(saved)
    private_postgres.stop("immediate")  # whatever the test left of it: up, down or mid-restart
    private_postgres.start()
    private_postgres.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


class Sweeper:
    """`manage.py sweep` as a process of its own, on the chaos database and the private Redis."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "sweep"],
            cwd=testbed.ROOT,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture
def chaos_workers(chaos_db, broker, tmp_path):
    pool = testbed.Workers(broker.url, tmp_path)
    yield pool
    pool.stop_all()


@pytest.fixture
def sweepers(chaos_workers, tmp_path):
    started = []

    def start(**env: str) -> Sweeper:
        full = chaos_workers.env(SWEEP_INTERVAL_S="0.5", **env)
        sweeper = Sweeper(full, tmp_path / f"sweeper-{len(started)}.log")
        started.append(sweeper)
        return sweeper

    yield start
    for sweeper in started:
        sweeper.stop()


@pytest.fixture
def chaos_alice(chaos_db):
    return testbed.make_persona("alice")


@pytest.fixture
def rabbit():
    if not testbed.RabbitServer.available():
        pytest.skip("rabbitmq-server is not installed: this test runs a RabbitMQ node of its own")
    # Not under pytest's tmp_path: its parents are private to this user, and the node runs as rabbitmq.
    server = testbed.RabbitServer(testbed.stable_port(), Path(tempfile.mkdtemp(prefix="kb-chaos-rabbit-")))
    try:
        server.start()
        yield server
    finally:  # a node that failed to start still has its epmd
        server.close()
    shutil.rmtree(server.dir, ignore_errors=True)


@pytest.fixture
def rabbit_platform(chaos_db, rabbit, tmp_path):
    """Workers and a sweeper on the chaos database and the private RabbitMQ node."""
    pool = testbed.Workers(rabbit.url, tmp_path)
    started = []

    def sweeper(**env: str) -> Sweeper:
        started.append(Sweeper(pool.env(SWEEP_INTERVAL_S="0.5", **env), tmp_path / "sweeper-rabbit.log"))
        return started[-1]

    yield pool, sweeper
    for s in started:
        s.stop()
    pool.stop_all()
