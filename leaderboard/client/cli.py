"""`kernelboard`: submit kernels and read rankings from the command line.

    kernelboard problems
    kernelboard submit vectoradd my_kernel.py --device cpu --mode test --wait
    kernelboard submit vectoradd my_kernel.py --mode profile --profile-csv profiles/
    kernelboard submit vectoradd candidate.py --mode explore --wait   # an agent's candidate: never ranked
    kernelboard status 12 --wait
    kernelboard list --problem vectoradd
    kernelboard show 12
    kernelboard cancel 12
    kernelboard devices
    kernelboard rankings vectoradd --device cpu

The token comes from KERNELBOARD_TOKEN or ~/.config/kernelboard/config.toml (`token = "kb_..."`), made on
the server's page /account/tokens/; the server from --url, KERNELBOARD_URL, the file's `url`, or
http://127.0.0.1:8000.
Exit status: 0 done (a submission passed), 1 a submission did not pass, 2 a usage or server error,
3 still not judged when --timeout ran out.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from leaderboard.client.config import config_path, load_config
from leaderboard.client.connection import ApiClient, ApiError
from leaderboard.client.report import render_report
from leaderboard.submissions.languages import LANGUAGES, language_of
from runner import vocabulary
from runner.report import SCORE_DEFINITION, format_progress, format_score, format_time, write_profile_csvs

DEVICE_KINDS = tuple(vocabulary.DEVICE_KINDS)
MODES = vocabulary.SUBMISSION_MODES  # the runner's, and explore: the exploration tier


TOKEN_HELP = (
    "Where the token goes: make one on the server's page {url}/account/tokens/ (signed in), then set "
    'KERNELBOARD_TOKEN=kb_... or put `token = "kb_..."` (and `url = "..."`) in {path}.'
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelboard",
        description="Submit kernels to a Kernelboard server.",
        epilog="The server: --url, else KERNELBOARD_URL, else the config file's `url`, else "
        "http://127.0.0.1:8000. "
        + TOKEN_HELP.format(url="SERVER", path=config_path())
        + " Reading problems, rankings and device kinds needs no token.",
    )
    parser.add_argument("--url", help="the server (default: KERNELBOARD_URL or http://127.0.0.1:8000)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    commands.add_parser("problems", help="list the problems")

    submit = commands.add_parser("submit", help="submit a kernel")
    submit.add_argument("problem")
    submit.add_argument("file", type=Path, help="a Python file that defines custom_kernel(data)")
    submit.add_argument("--device", default="cpu", choices=DEVICE_KINDS)
    submit.add_argument("--mode", default="test", choices=MODES)
    submit.add_argument("--language", choices=LANGUAGES, help="default: guessed from the source")
    submit.add_argument(
        "--fresh",
        action="store_true",
        help="mode explore: judge it again even where identical code was judged before",
    )
    _wait_options(submit)

    status = commands.add_parser("status", help="a submission's state, or its report once judged")
    status.add_argument("id", type=int)
    _wait_options(status)

    listing = commands.add_parser("list", help="your latest submissions, newest first")
    listing.add_argument("--problem", help="only this problem's")
    listing.add_argument("--limit", type=int, default=20)

    show = commands.add_parser("show", help="a submission in full: its details, attempts, and report")
    show.add_argument("id", type=int)

    cancel = commands.add_parser("cancel", help="take a queued submission off the queue")
    cancel.add_argument("id", type=int)

    commands.add_parser("devices", help="the device kinds: which a worker serves now, and the wait")

    rankings = commands.add_parser("rankings", help="show a problem's ranking on a device kind")
    rankings.add_argument("problem")
    rankings.add_argument("--device", default="cpu", choices=DEVICE_KINDS)
    rankings.add_argument("--limit", type=int, default=50)
    return parser


def _wait_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait", action="store_true", help="follow it until it is judged, then report")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait (default 1800)")
    parser.add_argument("--poll", type=float, default=0.5, help=argparse.SUPPRESS)
    parser.add_argument(
        "--profile-csv",
        type=Path,
        metavar="DIR",
        help="a profile run: write each case's operator table to DIR as a CSV file (implies --wait)",
    )


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    config = load_config(args.url)
    client = ApiClient(config.url, config.token)
    try:
        if args.command == "problems":
            return _problems(client)
        if args.command == "rankings":
            return _rankings(client, args)
        if args.command == "devices":
            return _devices(client)
        if not config.token:
            print(
                "kernelboard: no API token. " + TOKEN_HELP.format(url=config.url, path=config_path()),
                file=sys.stderr,
            )
            return 2
        return COMMANDS[args.command](client, args)
    except ApiError as exc:
        print(f"kernelboard: {exc.message}", file=sys.stderr)
        if exc.status == 401:
            print("kernelboard: " + TOKEN_HELP.format(url=config.url, path=config_path()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "\nkernelboard: stopped waiting; the submission goes on (see `kernelboard status ID`).",
            file=sys.stderr,
        )
        return 130


def _devices(client: ApiClient) -> int:
    kinds = client.get("/api/device-kinds")
    width = max((len(k["name"]) for k in kinds), default=0)
    for k in kinds:
        explore = k.get("explore_workers") or []
        candidates = (
            f"; exploration: {len(explore)} worker{'s' if len(explore) != 1 else ''}, "
            f"{k.get('explore_queued', 0)} queued"
            if explore
            else ""
        )
        print(f"{k['name']:<{width}}  {k['status']}{candidates}")
    return 0


def _list(client: ApiClient, args) -> int:
    query = f"?limit={max(1, args.limit)}" + (f"&problem={quote(args.problem)}" if args.problem else "")
    submissions = client.get(f"/api/submissions{query}")
    if not submissions:
        print("No submissions yet." if not args.problem else f"No submissions to {args.problem} yet.")
        return 0
    for s in submissions:
        score = format_time(s["score_s"]) if s["score_s"] else ""
        print(
            f"#{s['id']:<6} {s['created_at'][:19].replace('T', ' ')}  {s['problem']:<12} {s['device']:<6} "
            f"{s['mode']:<11} {s['language']:<7} {s['state']:<9} {score}".rstrip()
        )
    return 0


def _show(client: ApiClient, args) -> int:
    s = client.get(f"/api/submissions/{args.id}")
    print(f"Submission #{s['id']}: {s['problem']} (version {s['problem_version']})")
    print(
        f"  device {s['device']}, mode {s['mode']}, language {s['language']}, source sha256 {s['source_sha256']}"
    )
    print(f"  state {_progress_words(s)}")
    for label, key in (("submitted", "created_at"), ("started", "started_at"), ("finished", "finished_at")):
        if s.get(key):
            print(f"  {label} {s[key][:19].replace('T', ' ')} UTC")
    if s.get("message"):
        print(f"  {s['message']}")
    for attempt in s.get("history") or []:
        print(f"  {attempt['summary']}")
    if not s["final"]:
        if s["state"] == "queued":
            print(
                f"  (`kernelboard cancel {s['id']}` takes it off the queue; `kernelboard status {s['id']} --wait` follows it)"
            )
        return 0
    if s["state"] == "cancelled":
        return 1
    print()
    return _report(client, s, None)


def _cancel(client: ApiClient, args) -> int:
    cancelled = client.post(f"/api/submissions/{args.id}/cancel", {})
    print(
        f"Cancelled #{cancelled['id']} ({cancelled['problem']} on {cancelled['device']}): it will not be judged."
    )
    return 0


def _problems(client: ApiClient) -> int:
    problems = client.get("/api/problems")
    if not problems:
        print("No problems yet.")
    width = max((len(p["name"]) for p in problems), default=0)
    for p in problems:
        print(f"{p['name']:<{width}}  {p['title']}  (version {p['version']})")
    return 0


def _rankings(client: ApiClient, args) -> int:
    ranking = client.get(
        f"/api/problems/{quote(args.problem)}/rankings?device={args.device}&limit={args.limit}"
    )
    print(f"{ranking['problem']} on {ranking['device']} (version {ranking['version']})")
    if not ranking["entries"]:
        print("No ranked submissions yet: submit with --mode leaderboard.")
        return 0
    width = max(len(e["user"]) + (8 if e["is_agent"] else 0) for e in ranking["entries"])
    for e in ranking["entries"]:
        who = e["user"] + (" (agent)" if e["is_agent"] else "")
        rank = f"{e['rank']}{'=' if e.get('tied_with') else '.'}"
        score = format_score(e["score_s"], e.get("score_low_s"), e.get("score_high_s"))
        print(
            f"{rank:>5} {who:<{width}}  {score:<44}  {e['language']:<8}"
            f"  #{e['submission_id']}  {e['submitted_at'][:19].replace('T', ' ')}"
        )
    print(f"score: {SCORE_DEFINITION}. '=' marks a rank shared with entries whose intervals overlap.")
    return 0


def _submit(client: ApiClient, args) -> int:
    try:
        source = args.file.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"kernelboard: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    language = args.language or language_of(source)
    created = client.post(
        "/api/submissions",
        {
            "problem": args.problem,
            "device": args.device,
            "mode": args.mode,
            "language": language,
            "source": source,
            "reuse": not args.fresh,
        },
    )
    print(
        f"Submitted #{created['id']}: {args.problem} on {args.device}, mode {args.mode}, {language}.",
        file=sys.stderr,
    )
    if created.get("shared_from"):
        print(
            f"Identical code was judged as #{created['shared_from']}: this one shares that run.",
            file=sys.stderr,
        )
    if created.get("wait_estimate_s"):
        print(
            f"Queued at position {created['queue_position']}: about {created['wait_estimate_s']:.0f} s "
            "before a worker takes it.",
            file=sys.stderr,
        )
    if not (args.wait or args.profile_csv):
        print(created["id"])
        return 0
    return _follow(client, created["id"], args)


def _status(client: ApiClient, args) -> int:
    """The state while it waits or runs (or, with --wait, followed to the end); the report once final."""
    if args.wait:
        return _follow(client, args.id, args)
    submission = client.get(f"/api/submissions/{args.id}")
    if submission["final"]:
        return _report(client, submission, args.profile_csv)
    print(_progress_words(submission))
    return 0


def _progress_words(submission: dict[str, Any]) -> str:
    state = submission["state"]
    if state == "queued" and submission.get("unserved"):
        words = f"queued, but no worker serves {submission['device']} now"
    elif state == "queued" and submission.get("queue_position"):
        words = f"queued (position {submission['queue_position']})"
    else:
        words = state
    if submission.get("attempts", 0) > 1:
        words += f", attempt {submission['attempts']}"
    return words


def _follow(client: ApiClient, submission_id: int, args) -> int:
    """Poll until the submission is final, showing its progress on stderr; then print the report."""
    live = sys.stderr.isatty()
    spinner = itertools.cycle("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
    started = time.monotonic()
    last_words = None
    last_done = 0  # the judge's case count last printed
    while True:
        submission = client.get(f"/api/submissions/{submission_id}")
        if submission["final"]:
            if live:
                print("\r\033[K", end="", file=sys.stderr)
            return _report(client, submission, args.profile_csv)
        progress = submission.get("progress")
        if progress and progress["done"] != last_done:
            # A line per new case, kept above the spinner (polls may skip cases that finished in between):
            # "benchmark 3 of 5 passed · vectoradd[size=256] · 12.3 us".
            print(
                ("\r\033[K" if live else "") + f"#{submission_id} {format_progress(progress)}",
                file=sys.stderr,
            )
            last_done = progress["done"]
        words = _progress_words(submission)
        elapsed = time.monotonic() - started
        if live:
            print(
                f"\r\033[K{next(spinner)} #{submission_id} {words}  {elapsed:.0f}s",
                end="",
                file=sys.stderr,
                flush=True,
            )
        elif words != last_words:
            print(f"#{submission_id} {words}", file=sys.stderr, flush=True)
        last_words = words
        if elapsed > args.timeout:
            if live:
                print(file=sys.stderr)
            print(
                f"kernelboard: #{submission_id} is still {words} after {args.timeout:g} s; "
                f"check later with `kernelboard status {submission_id}`.",
                file=sys.stderr,
            )
            return 3
        time.sleep(args.poll)


def _report(client: ApiClient, submission: dict[str, Any], profile_csv: Path | None) -> int:
    print(render_report(submission, colour=sys.stdout.isatty()))
    if profile_csv is not None:
        _write_profiles(client, submission, profile_csv)
    return 0 if vocabulary.passed(submission["state"]) else 1


# The commands that need a token, by name.
COMMANDS = {"submit": _submit, "status": _status, "list": _list, "show": _show, "cancel": _cancel}


def _write_profiles(client: ApiClient, submission: dict[str, Any], directory: Path) -> None:
    """Each table's CSV, fetched from the server and written by the runner's own writer (the same file
    names as `python -m runner run --profile-csv`)."""
    profiles = [
        {
            "case": p["case"],
            "csv": client.get_text(f"/api/submissions/{submission['id']}/profiles/{p['number']}.csv"),
        }
        for p in submission.get("profiles") or []
        if p.get("has_csv")
    ]
    if not profiles:
        what = "a profile run" if submission["mode"] == "profile" else f"a {submission['mode']} run"
        print(
            f"kernelboard: no profile tables to write: #{submission['id']} is {what} without any.",
            file=sys.stderr,
        )
        return
    for path in write_profile_csvs(profiles, directory):
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
