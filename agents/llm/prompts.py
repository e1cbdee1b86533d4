"""Prompts for the LLM policy and reading code back out of its answers."""

from __future__ import annotations

import re

from agents.policy import Context
from runner.report import format_time

SYSTEM = (
    "You are an expert GPU and CPU kernel engineer. You rewrite a working submission so that it runs faster "
    "while computing the same result within the problem's tolerance. Answer with one complete Python module "
    "in a single ```python code block that defines custom_kernel(data). Do not cache results across calls, do "
    "not patch torch or timers, do not start threads or streams that outlive the call: the judge checks "
    "every output on fresh inputs and fails such tricks."
)


def build_messages(
    context: Context, statement: str = "", hints: list[str] | None = None
) -> list[dict[str, str]]:
    """Chat messages for one group: the problem, the start's code and its measured runtime, and as hints
    the rewrites of the problem's program space (the moves the offline policy makes, in words)."""
    lines = [f"Problem: {context.problem} (device: {context.device})."]
    if statement:
        lines += ["", statement.strip()]
    if hints:
        lines += ["", "Rewrites that keep the maths and may pay off (combine several):"]
        lines += [f"- {h}" for h in hints]
    lines += ["", "The current submission:", "```python", context.start_code.rstrip(), "```"]
    measured = format_time(context.start_runtime_s) if context.start_runtime_s is not None else "not measured"
    runtime = f"Its measured runtime (geometric mean over the benchmark cases) is {measured}"
    if context.reference_s and context.start_runtime_s:
        runtime += f", {context.reference_s / context.start_runtime_s:.2f}x the reference's speed"
    lines += ["", runtime + ".", "Write a faster version."]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)


def extract_code(answer: str) -> str:
    """The Python module in an answer: the longest fenced block, else the whole answer (the judge decides)."""
    blocks = [b for b in _FENCE.findall(answer) if b.strip()]
    if blocks:
        return max(blocks, key=len).strip() + "\n"
    return answer.strip() + "\n"
