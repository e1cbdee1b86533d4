"""The runner's layout holds (docs/architecture.md): no import circle inside `runner/`, counting imports made
inside functions too, and nothing imported from the floors above it (the platform, the agents, Django).

Read from the source with `ast`, so that a circle is found before it bites at import time."""

import ast
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[2] / "runner"
ABOVE = ("leaderboard", "agents", "django", "celery")


def modules() -> dict[str, Path]:
    found = {}
    for path in RUNNER.rglob("*.py"):
        parts = path.relative_to(RUNNER.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every module `name` imports, at the top or inside a function: `from a import b` counts as `a.b`
    where that is a module, else as `a`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            subs = [f"{base}.{alias.name}" for alias in node.names]
            out |= {s for s in subs if s in known}
            if any(s not in known for s in subs):
                out.add(base)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    edges = {}
    for name, path in known.items():
        edges[name] = set()
        for target in imports(name, path, known):
            while target and target not in known:  # a name inside a module: the module
                target = target.rpartition(".")[0]
            if target and target != name:
                edges[name].add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_runner_has_no_import_circle():
    edges = graph()
    assert "runner.judge.loop" in edges and "runner.sandbox.job" in edges["runner.sandbox.base"]
    found = circles(edges)
    assert not found, "import circles in runner/: " + "; ".join(" -> ".join(g) for g in found)


# The rooms of runner/ (docs/architecture.md) and what each may import besides itself: the untrusted process
# and the wire it talks over stand on nothing trusted, the sandbox never reaches into the judge, and only
# the entry points start a judge.
ROOMS = {
    "runner.contestant": {"runner.wire", "runner.floors", "runner.vocabulary"},
    "runner.wire": {"runner.settings"},
    "runner.sandbox": {
        "runner.contestant",
        "runner.wire",
        "runner.limits",
        "runner.problem",
        "runner.settings",
        "runner.spec",
        "runner.vocabulary",
        "runner.gpumode",
    },
    "runner.judge": {
        "runner.contestant",
        "runner.wire",
        "runner.sandbox",
        "runner.floors",
        "runner.limits",
        "runner.problem",
        "runner.readiness",
        "runner.settings",
        "runner.spec",
        "runner.textsafe",
        "runner.vocabulary",
        "runner.gpumode",
    },
}
ENTRY_POINTS = {"runner", "runner.__main__", "runner.cli", "runner.bench", "runner.pytest_plugin"}


def room(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 and ".".join(parts[:2]) in ROOMS else module


def test_each_room_imports_only_what_it_may():
    edges = graph()
    crossing = {
        (a, b)
        for a, targets in edges.items()
        for b in targets
        if room(a) in ROOMS and room(b) != room(a) and room(b) not in ROOMS[room(a)]
    }
    assert not crossing, sorted(crossing)
    callers = {a for a, targets in edges.items() if "runner.caller" in targets}
    assert callers <= ENTRY_POINTS, callers - ENTRY_POINTS


def test_the_circle_finder_finds_a_circle_through_a_lazy_import():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_runner_imports_nothing_from_the_floors_above_it():
    known = modules()
    upward = {
        name: sorted(t for t in imports(name, path, known) if t.split(".")[0] in ABOVE)
        for name, path in known.items()
    }
    assert not {k: v for k, v in upward.items() if v}


def test_the_platform_and_the_agents_import_only_the_runners_declared_surface():
    import importlib
    import importlib.util

    from runner import SURFACE

    used: dict[str, set[str]] = {}
    root = RUNNER.parent
    for folder in ("leaderboard", "agents"):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.ImportFrom)
                    and not node.level
                    and (node.module or "").split(".")[0] == "runner"
                ):
                    used.setdefault(node.module, set()).update(a.name for a in node.names)
                elif isinstance(node, ast.Import):
                    assert not any(
                        a.name.split(".")[0] == "runner" and a.name != "runner" for a in node.names
                    ), path
    outside = {m: sorted(names - SURFACE.get(m, set())) for m, names in used.items()}
    assert not {m: n for m, n in outside.items() if n}, (
        "not in runner.SURFACE: declare it there, or keep it inside"
    )
    assert "execute" in used["runner"]  # the walk sees the platform's imports at all
    for module, names in SURFACE.items():  # every declared name exists
        found = importlib.import_module(module)
        missing = [
            n for n in names if not hasattr(found, n) and importlib.util.find_spec(f"{module}.{n}") is None
        ]
        assert not missing, (module, missing)


def reads_of_the_environment(tree: ast.AST) -> list[str]:
    """The RUNNER_* names a module reads with os.environ.get, os.environ[...] or os.getenv."""
    names = []
    for node in ast.walk(tree):
        target, key = None, None
        if isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute):
            target, key = node.func, node.args[0]
            if not (
                target.attr == "getenv"
                or (target.attr == "get" and ast.unparse(target.value).endswith("environ"))
            ):
                continue
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("environ"):
            if isinstance(node.ctx, ast.Store):
                continue
            key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith("RUNNER_"):
            names.append(key.value)
    return names


def test_only_runner_settings_reads_the_runners_settings():
    from runner.settings import SETTINGS

    readers = {
        name: reads_of_the_environment(ast.parse(path.read_text()))
        for name, path in modules().items()
        if name != "runner.settings"
    }
    assert not {k: v for k, v in readers.items() if v}, "read them through runner.settings.get"
    sample = 'os.environ.get("RUNNER_X"); os.getenv("RUNNER_Y"); os.environ["RUNNER_Z"]; os.environ["RUNNER_W"] = "1"'
    assert reads_of_the_environment(ast.parse(sample)) == ["RUNNER_X", "RUNNER_Y", "RUNNER_Z"]
    assert all(s.why for s in SETTINGS.values())  # each with its reason


def test_the_contestant_process_loads_nothing_trusted():
    """What `python -m runner.contestant.harness` has loaded once it is ready to import a submission: its
    own room, the wire and the shared words, nothing of the caller, the judge or the sandbox (the static
    ROOMS check cannot see what a parent package's __init__ imports)."""
    import subprocess
    import sys

    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, runner.contestant.harness; print(' '.join(sys.modules))"],
        cwd=RUNNER.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    ours = {m for m in loaded if m.split(".")[0] == "runner"}
    assert "runner.contestant.harness" in ours
    trusted = {m for m in ours if room(m) in ("runner.judge", "runner.sandbox") or m == "runner.caller"}
    trusted |= {m for m in ours if m in ("runner.wire.seal", "runner.wire.leash", "runner.scanner")}
    assert not trusted, sorted(trusted)
