"""manage.py import_problem PATH: a reference-kernels folder becomes a problem that the site offers and a
real worker judges (PostgreSQL, the private Redis, a `celery worker` with the default sandbox)."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from testbed import wait_for

from leaderboard.submissions.models import State, Submission

ROWSUM = Path(__file__).resolve().parents[2] / "runner" / "reference_kernels" / "rowsum_py"
WRONG = "from task import input_t, output_t\n\n\ndef custom_kernel(data: input_t) -> output_t:\n    return data.mean(dim=1)\n"


def test_a_folder_outside_the_problem_folders_is_refused(db, tmp_path):
    with pytest.raises(CommandError, match="is not where problems are looked for .*KERNELBOARD_PROBLEM_DIRS"):
        call_command("import_problem", str(ROWSUM), "--into", str(tmp_path))


def test_what_cannot_map_is_refused_in_words(db, tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELBOARD_PROBLEM_DIRS", str(tmp_path))
    with pytest.raises(CommandError, match="cannot import .*has no task.yml"):
        call_command("import_problem", str(tmp_path), "--into", str(tmp_path))


@pytest.mark.slow
def test_an_imported_problem_is_offered_and_judged_on_the_site(
    workers, client, alice, no_limits, tmp_path, monkeypatch
):
    monkeypatch.setenv("KERNELBOARD_PROBLEM_DIRS", str(tmp_path))  # the worker started below inherits it
    out = StringIO()
    call_command("import_problem", str(ROWSUM), "--into", str(tmp_path), stdout=out)
    assert "rowsum_py: written to" in out.getvalue() and "runs on: CPU and GPUs" in out.getvalue()
    assert "rowsum_py: new, version" in out.getvalue()

    page = client.get("/problems/rowsum_py/")
    assert page.status_code == 200
    assert "Row sums of a float32 matrix" in page.content.decode()
    template = client.get("/problems/rowsum_py/templates/pytorch.py")
    assert template.status_code == 200 and b"data.sum(dim=1)" in template.content

    workers.start("imported")
    client.force_login(alice.user)
    ids = {}
    for label, source in (("correct", (ROWSUM / "template.py").read_text()), ("wrong", WRONG)):
        form = {
            "problem": "rowsum_py",
            "language": "pytorch",
            "device_kind": "cpu",
            "mode": "test",
            "source": source,
        }
        response = client.post("/submit/", form)
        assert response.status_code == 302, response.content.decode()[-2000:]
        ids[label] = int(response["Location"].rstrip("/").rsplit("/", 1)[1])

    def final(pk):
        row = Submission.objects.get(pk=pk)
        return row if row.is_final else None

    correct = wait_for(
        lambda: final(ids["correct"]), timeout_s=180, what="the correct submission's verdict", every_s=0.5
    )
    wrong = wait_for(
        lambda: final(ids["wrong"]), timeout_s=180, what="the wrong submission's verdict", every_s=0.5
    )
    assert correct.state == State.PASSED, correct.message
    assert wrong.state == State.FAILED and "values differ beyond rtol=0.0001" in wrong.message, wrong.message
    shown = client.get(f"/submissions/{wrong.pk}/").content.decode()
    assert "values differ beyond rtol=0.0001" in shown
