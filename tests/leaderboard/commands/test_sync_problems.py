"""manage.py sync_problems: a changed problem becomes a new version; unchanged ones stay as they are."""

import shutil
from io import StringIO

import pytest
from django.core.management import call_command
from testbed import ROOT

import runner.problem
from leaderboard.problems.models import Problem, ProblemVersion


def sync() -> str:
    out = StringIO()
    call_command("sync_problems", stdout=out)
    return out.getvalue()


@pytest.fixture
def problems_dir(tmp_path, monkeypatch):
    """A copy of problems/vectoradd that the test may change, read by the runner's own loader."""
    shutil.copytree(ROOT / "problems" / "vectoradd", tmp_path / "vectoradd")
    monkeypatch.setattr(runner.problem, "PROBLEMS_DIR", tmp_path)
    return tmp_path


def test_every_problem_folder_is_synced_with_its_content_hash(db):
    out = sync()
    for name in runner.problem.list_problems():
        problem = Problem.objects.get(name=name)
        assert problem.current_version.content_hash == runner.problem.load_problem(name).version
        assert f"{name}: added, version {problem.current_version.content_hash}" in out
    vectoradd = Problem.objects.get(name="vectoradd").current_version
    assert vectoradd.cases["cpu"]["test"][0]["id"].startswith("vectoradd[size=")
    assert "custom_kernel" in vectoradd.templates["pytorch.py"]
    assert "def ref_kernel" in vectoradd.reference_source


def test_a_second_sync_changes_nothing(db):
    sync()
    assert "vectoradd: unchanged" in sync()
    assert ProblemVersion.objects.filter(problem__name="vectoradd").count() == 1


def test_a_changed_problem_gets_a_new_version_and_keeps_the_old(db, problems_dir):
    sync()
    old = Problem.objects.get(name="vectoradd").current_version
    with open(problems_dir / "vectoradd" / "reference.py", "a") as f:
        f.write("\n# a changed reference\n")
    out = sync()
    problem = Problem.objects.get(name="vectoradd")
    assert problem.current_version != old
    assert f"new version {problem.current_version.content_hash} (was {old.content_hash})" in out
    assert ProblemVersion.objects.filter(problem=problem).count() == 2  # the old one and its scores stay


def test_a_new_statement_refreshes_the_version_in_place(db, problems_dir):
    sync()
    (problems_dir / "vectoradd" / "statement.md").write_text("# Add two matrices\n")
    assert "unchanged" in sync()
    assert Problem.objects.get(name="vectoradd").current_version.statement == "# Add two matrices\n"


def test_a_removed_folder_retires_its_problem(db, problems_dir):
    sync()
    shutil.rmtree(problems_dir / "vectoradd")
    assert "vectoradd: its folder is gone" in sync()
    assert not Problem.objects.get(name="vectoradd").is_active
