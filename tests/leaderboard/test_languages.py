"""A submission's language, read from its source by one function (leaderboard/submissions/languages.py) that
the command line, the submit form and the agents share."""

from __future__ import annotations

import pytest

from leaderboard.submissions.languages import LANGUAGES, language_of
from runner.problem import PROBLEMS_DIR

TEMPLATES = sorted(PROBLEMS_DIR.glob("*/templates/*.py"))


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_template_is_read_as_the_language_its_name_says(path):
    assert (
        language_of(path.read_text())
        == {"pytorch.py": "pytorch", "triton.py": "triton", "cuda.py": "cuda"}[path.name]
    )


def test_imports_count_not_comments_or_strings():
    assert language_of("# no need to import triton here\nimport torch\n") == "pytorch"
    assert language_of('HELP = "from triton import jit"\n') == "pytorch"
    assert language_of("import triton.language as tl\n") == "triton"
    assert language_of("from triton import jit\n") == "triton"
    assert language_of("import torch\nm = torch.utils.cpp_extension.load_inline('m', '')\n") == "cuda"
    assert language_of("import triton\nfrom torch.utils.cpp_extension import load_inline\n") == "cuda"


def test_a_source_that_does_not_parse_is_read_by_its_text():
    assert language_of("import triton\ndef custom_kernel(data:\n") == "triton"
    assert language_of("load_inline(\n") == "cuda"
    assert language_of("x = 1\0\n") == "pytorch"


def test_the_platforms_languages_are_these():
    from leaderboard.submissions.models import Language

    assert tuple(Language.values) == LANGUAGES


def test_the_command_line_and_the_agents_use_this_definition():
    from leaderboard.agentruns import services
    from leaderboard.client import cli

    assert cli.language_of is language_of and cli.LANGUAGES is LANGUAGES
    assert services.language_of is language_of
