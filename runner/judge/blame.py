"""Who is to blame when the judge itself fails after the contestant started: the submission, when it
exhausted a resource the judge shares with it or ended processes the judge was reading (its verdict names
what), else the platform, which runs it again. docs/sandbox.md, "Limits, per mode, in one place" (Whose
fault), has the list."""

from __future__ import annotations

import errno

# What the judge ran out of, in the user's words; `limits.name_limit` then names the limit from the errno text
EXHAUSTED = {
    errno.EMFILE: "open files",
    errno.ENFILE: "the host's open files",
    errno.ENOMEM: "memory",
    errno.ENOSPC: "space",
    errno.EAGAIN: "processes or threads",
}
VANISHED = {errno.ESRCH, errno.ENOENT}  # a process ended (or a cgroup went) as the judge read it
WATCHED = ("/proc/", "/sys/fs/cgroup/")  # where a vanished file means a process of the job went


def submissions_doing(exc: BaseException) -> str | None:
    """The verdict's message when a judge failure that happened after the contestant started is the
    submission's doing; None when it is the platform's. Looks through the exception's causes too."""
    seen: BaseException | None = exc
    while seen is not None:
        what = _what_ran_out(seen)
        if what:
            return (
                f"the judge ran out of {what} while the submission ran, which its processes took "
                f"({type(seen).__name__}: {seen})"
            )
        if (
            isinstance(seen, OSError)
            and seen.errno in VANISHED
            and (seen.errno == errno.ESRCH or str(seen.filename or "").startswith(WATCHED))
        ):
            return (
                "a process of the submission vanished while the judge read it, so the run could not be "
                f"judged ({type(seen).__name__}: {seen})"
            )
        seen = seen.__cause__ or seen.__context__
    return None


def _what_ran_out(exc: BaseException) -> str | None:
    if isinstance(exc, MemoryError):
        return "memory"
    if isinstance(exc, OSError) and exc.errno in EXHAUSTED:
        return EXHAUSTED[exc.errno]
    if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
        return "processes or threads"
    return None
