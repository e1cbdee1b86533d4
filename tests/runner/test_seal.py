"""The judge's signed stream (runner/wire/seal.py): the strict `read` of the whole stream, and the incremental
`Reader` that shows the case frames while the judge runs. Both must believe only what the key signed, in
its order; a forged, reordered, replayed, truncated or trailing byte makes the whole stream untrusted."""

from __future__ import annotations

import json

import pytest

from runner.wire import seal

KEY = bytes(range(32))
OTHER_KEY = bytes(32)
REPORT = json.dumps({"verdict": "passed", "cases": []}).encode()


def case(done: int, total: int = 3, key: bytes = KEY, status: str = "passed") -> bytes:
    return seal.case_frame(
        key, done, total, f"vectoradd[size={done}]", status, "benchmark", done, total, 1.5e-5
    )


def stream(*cases: bytes, key: bytes = KEY) -> bytes:
    return seal.frame(key, seal.STARTED) + b"".join(cases) + seal.frame(key, seal.REPORT, REPORT)


GOOD = stream(case(1), case(2), case(3))


def test_a_stream_of_started_cases_and_report_is_believed():
    found = seal.read(KEY, GOOD)
    assert (found.started, found.report, found.problem) == (True, REPORT, "")
    assert [c["done"] for c in found.cases] == [1, 2, 3]
    assert found.cases[0] == {
        "done": 1,
        "total": 3,
        "case": "vectoradd[size=1]",
        "status": "passed",
        "kind": "benchmark",
        "kind_done": 1,
        "kind_total": 3,
        "median_s": 1.5e-5,
    }


def signed_case(**fields) -> bytes:
    payload = {"done": 1, "total": 3, "case": "vectoradd[size=1]", "status": "passed", "kind": "test"}
    payload |= {"kind_done": 1, "kind_total": 2, "median_s": None} | fields
    return seal.frame(KEY, seal.CASE, json.dumps(payload).encode())


@pytest.mark.parametrize(
    "fields",
    [
        {"kind_done": 3},  # past its phase's count
        {"kind_total": 4},  # a phase longer than the run
        {"kind": ""},
        {"median_s": -1.0},
        {"median_s": "12 us"},
        {"secret_seed": 7},  # nothing beyond the fields a case frame holds
    ],
)
def test_a_signed_case_frame_with_wrong_fields_makes_the_stream_untrusted(fields):
    assert seal.read(KEY, stream(signed_case())).problem == ""
    found = seal.read(KEY, stream(signed_case(**fields)))
    assert found.report is None and found.problem


def test_a_stream_without_case_frames_is_believed_as_before():
    found = seal.read(KEY, stream())
    assert (found.started, found.report, found.problem, found.cases) == (True, REPORT, "", [])


def test_the_reader_gives_each_case_once_whatever_the_split():
    """Split at every byte boundary (and one byte at a time): the same frames, in order, and the same end."""
    for cut in range(len(GOOD) + 1):
        reader = seal.Reader(KEY)
        got = reader.feed(GOOD[:cut]) + reader.feed(GOOD[cut:])
        assert [c["done"] for c in got] == [1, 2, 3], cut
        assert reader.finish().report == REPORT, cut
    reader = seal.Reader(KEY)
    got = [c for i in range(len(GOOD)) for c in reader.feed(GOOD[i : i + 1])]
    assert [c["done"] for c in got] == [1, 2, 3]
    assert (reader.finish().report, reader.problem) == (REPORT, "")


def test_a_case_is_given_as_soon_as_its_frame_is_whole():
    head = seal.frame(KEY, seal.STARTED) + case(1)
    reader = seal.Reader(KEY)
    assert reader.feed(head[:-1]) == []
    assert [c["done"] for c in reader.feed(head[-1:])] == [1]
    assert reader.problem == ""


@pytest.mark.parametrize(
    "forged",
    [
        case(2, key=OTHER_KEY),  # signed with another key
        case(2)[:-3] + b"999",  # its payload changed after signing
        case(2).replace(b"KB1 case", b"KB1 report"),  # its kind changed (the mac covers the kind)
        b"KB1 case 2 " + b"0" * 64 + b"\n{}",  # a made-up mac
        b"hello from the contestant\n",  # bytes the judge did not write
        seal.frame(KEY, seal.CASE, b"not json"),  # signed, but malformed
        seal.frame(KEY, seal.CASE, json.dumps({"done": 2, "total": 3}).encode()),  # signed, fields missing
        seal.frame(
            KEY, seal.CASE, json.dumps({"done": "2", "total": 3, "case": "x", "status": "p"}).encode()
        ),
        seal.frame(KEY, seal.STARTED),  # a second started
    ],
)
def test_a_forged_or_malformed_frame_makes_the_whole_stream_untrusted(forged):
    data = stream(case(1), forged, case(2), case(3))
    found = seal.read(KEY, data)
    assert found.report is None and found.problem.startswith("the judge's report stream held")
    # The reader shows the case before the forgery, then nothing more, however the bytes arrive.
    for cut in (0, len(data) // 2, len(data)):
        reader = seal.Reader(KEY)
        got = reader.feed(data[:cut]) + reader.feed(data[cut:])
        assert [c["done"] for c in got] == [1], cut
        assert reader.problem and reader.finish().report is None


@pytest.mark.parametrize(
    "cases",
    [
        (case(2), case(1), case(3)),  # reordered
        (case(1), case(1), case(2)),  # replayed: signed, but out of the count
        (case(1), case(3)),  # one skipped
        (case(1), case(2, total=4)),  # the total changed
        (case(4, total=3),),  # past the total
        (case(0),),  # the count starts at 1
    ],
)
def test_case_frames_out_of_their_count_make_the_stream_untrusted(cases):
    found = seal.read(KEY, stream(*cases))
    assert found.report is None and found.problem


def test_a_case_frame_before_started_is_not_believed():
    data = case(1) + seal.frame(KEY, seal.STARTED) + seal.frame(KEY, seal.REPORT, REPORT)
    found = seal.read(KEY, data)
    assert (found.started, found.report) == (False, None) and found.problem
    assert seal.Reader(KEY).feed(data) == []


@pytest.mark.parametrize("cut", [1, 10, 40, 80])
def test_a_truncated_stream_leaves_no_report(cut):
    found = seal.read(KEY, GOOD[:-cut])
    assert found.started and found.report is None and found.problem


def test_a_stream_cut_after_the_cases_says_the_judge_left_no_report():
    found = seal.read(KEY, seal.frame(KEY, seal.STARTED) + case(1))
    assert (found.started, found.report, found.problem) == (True, None, seal.NO_REPORT)
    assert [c["done"] for c in found.cases] == [1]


@pytest.mark.parametrize("after", [b"x", b"\n", case(1), seal.frame(KEY, seal.REPORT, REPORT)])
def test_bytes_after_the_report_make_it_untrusted(after):
    found = seal.read(KEY, GOOD + after)
    assert (found.report, found.problem) == (None, seal.AFTER_REPORT)
    reader = seal.Reader(KEY)
    reader.feed(GOOD)
    assert reader.problem == "" and reader.stream.report == REPORT
    assert reader.feed(after) == []
    assert (reader.finish().report, reader.problem) == (None, seal.AFTER_REPORT)


def test_nothing_at_all_is_a_judge_that_never_started():
    found = seal.read(KEY, b"")
    assert (found.started, found.report, found.problem) == (False, None, "")


def test_an_endless_header_is_refused_without_waiting_for_a_newline():
    reader = seal.Reader(KEY)
    reader.feed(seal.frame(KEY, seal.STARTED))
    assert reader.feed(b"KB1 case " + b"9" * seal.MAX_HEADER) == []
    assert reader.problem == seal.NOT_WRITTEN


def test_a_case_frame_cannot_claim_a_huge_payload():
    reader = seal.Reader(KEY)
    reader.feed(seal.frame(KEY, seal.STARTED))
    reader.feed(b"KB1 case %d %s\n" % (seal.MAX_CASE + 1, b"0" * 64))
    assert reader.problem == seal.NOT_WRITTEN
