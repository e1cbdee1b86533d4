"""On a fresh var/ folder, any process may be the first to send to the embedded filesystem broker (`manage.py
run_agent` before `serve` ever ran): the send must find its folders, not fail and leave the row to the
sweeper."""

from __future__ import annotations

import os
import subprocess
import sys

from testbed import ROOT

SEND = """
import logging
import django
django.setup()
logging.basicConfig()  # kombu's warnings, if any, reach stderr
from leaderboard.celery import app
from leaderboard.submissions.services import JUDGE_TASK
app.send_task(JUDGE_TASK, args=[7], queue="cpu", retry=False)
"""


def test_first_send_on_a_fresh_var_folder_reaches_the_queue(tmp_path):
    var = tmp_path / "var"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CELERY_")}
    env.update(KERNELBOARD_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="leaderboard.settings")
    done = subprocess.run([sys.executable, "-c", SEND], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    sent = list((var / "broker" / "queue").iterdir())
    assert len(sent) == 1 and sent[0].name.endswith("cpu.msg"), sent
    assert "No hostname was supplied" not in done.stderr  # kombu's noise on a URL without a host
