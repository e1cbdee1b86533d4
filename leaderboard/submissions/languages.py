"""A submission's language, read from its source: one definition for every path that needs it. The command line
takes it when --language is not given, the submit form checks the chosen language against it (and the editor
follows a template's), the agents record it. It imports nothing, so that the command-line client, which never
imports Django, can use it too.

A source that builds CUDA code (torch.utils.cpp_extension: load_inline, load) is CUDA, even if it imports
triton as well; one that imports triton is Triton; any other is PyTorch. Only imports and names count, not
comments or strings; a source that does not parse is read by its text instead (the judge then reports the
syntax error).
"""

from __future__ import annotations

import ast

PYTORCH, TRITON, CUDA = "pytorch", "triton", "cuda"
LANGUAGES = (PYTORCH, TRITON, CUDA)  # the values of leaderboard.submissions.models.Language

# What in a source makes it each language, in the words the form's refusal uses.
EVIDENCE = {
    CUDA: "builds CUDA code with torch.utils.cpp_extension (load_inline)",
    TRITON: "imports triton",
    PYTORCH: "neither imports triton nor builds CUDA code",
}

_CPP_EXTENSION = "torch.utils.cpp_extension"
_BUILDERS = {"load_inline", "cpp_extension"}


def language_of(source: str) -> str:
    """pytorch, triton or cuda: the language `source` is written in."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte
        return _language_of_text(source)
    modules: list[str] = []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.append(node.module)
            modules += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    if any(m == _CPP_EXTENSION or m.startswith(_CPP_EXTENSION + ".") for m in modules) or (
        _BUILDERS & names and "torch" in {m.split(".")[0] for m in modules}
    ):
        return CUDA
    if any(m == "triton" or m.startswith("triton.") for m in modules):
        return TRITON
    return PYTORCH


def _language_of_text(source: str) -> str:
    if "load_inline" in source or _CPP_EXTENSION in source:
        return CUDA
    if "import triton" in source or "from triton" in source:
        return TRITON
    return PYTORCH
