"""Static red flags (threat 13): patterns in a submission's source that cheating kernels use.

Findings are evidence kept on the report for a reviewer. They never decide a verdict: honest kernels use
some of these too (a CUDA stream for overlap, ctypes for a driver call), and the judge's checks decide.
"""

from __future__ import annotations

import ast
import re

# (rule, what it suggests, a regular expression over one line)
LINE_RULES = [
    (
        "stream",
        "creates or switches CUDA streams: work may escape the timer",
        r"\b(cuda\.)?Stream\s*\(|torch\.cuda\.stream\b|set_stream",
    ),
    ("ctypes", "uses ctypes: raw memory or library calls", r"\bctypes\b|\bcffi\b"),
    ("proc", "reads /proc or /dev: other processes' memory or state", r"[\"']/(proc|dev/mem|sys/kernel)"),
    (
        "frames",
        "inspects interpreter frames or objects",
        r"sys\._getframe|\binspect\.(stack|currentframe|getouterframes)|gc\.get_objects|gc\.get_referrers|f_back|f_locals",
    ),
    (
        "timer",
        "touches timers",
        r"\btime\.(perf_counter|monotonic|time|process_time)(_ns)?\s*=|Event\.elapsed_time\s*=|elapsed_time\s*=",
    ),
    (
        "threads",
        "starts threads or processes",
        r"\bthreading\b|\bmultiprocessing\b|\bos\.fork\b|\bsubprocess\b|concurrent\.futures",
    ),
    ("network", "opens network sockets", r"\bsocket\b|\burllib\b|\brequests\b|\bhttp\.client\b"),
    (
        "subclass",
        "defines tensor subclasses or __torch_function__: lazy or fake outputs",
        r"__torch_function__|__torch_dispatch__|class\s+\w+\s*\(\s*torch\.Tensor",
    ),
    (
        "harness",
        "refers to the harness or reference",
        r"\brunner\b|\breference\b|ref_kernel|check_implementation|\bsys\.modules\b",
    ),
    (
        "cache",
        "keys on tensor identity: output replay",
        r"data_ptr\s*\(|\b_version\b|\bid\s*\(\s*\w+\s*\)|functools\.(lru_)?cache",
    ),
    ("exit", "exits the interpreter", r"\bos\._exit\b|\bsys\.exit\b|\bquit\s*\(|\bexit\s*\("),
]


def _patches(tree: ast.AST) -> list[tuple[int, str]]:
    """Assignments to attributes of torch, time, triton or builtins modules: monkeypatching."""
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and node.args:
            targets = [node.args[0]]
        for target in targets:
            root = target
            while isinstance(root, ast.Attribute):
                root = root.value
            if (
                isinstance(root, ast.Name)
                and root.id in ("torch", "time", "triton", "builtins", "sys", "gc")
                and (target is not root or isinstance(node, ast.Call))
            ):
                found.append((node.lineno, ast.unparse(target)))
    return found


def _docstring_lines(tree: ast.AST | None) -> set[int]:
    """Lines of docstrings: prose about a kernel is not evidence against it."""
    lines: set[int] = set()
    if tree is None:
        return lines
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def scan(source: str) -> list[dict]:
    findings = []
    try:
        tree: ast.AST | None = ast.parse(source)
    except SyntaxError:
        tree = None
    prose = _docstring_lines(tree)
    for number, line in enumerate(source.splitlines(), 1):
        if number in prose:
            continue
        code = line.split("#", 1)[0]
        for rule, why, pattern in LINE_RULES:
            if re.search(pattern, code):
                findings.append({"rule": rule, "line": number, "text": line.strip()[:200], "why": why})
    if tree is None:
        return findings
    for number, target in _patches(tree):
        findings.append(
            {"rule": "patch", "line": number, "text": target, "why": "patches a module the harness relies on"}
        )
    return findings
