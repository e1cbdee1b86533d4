"""The case loop's arithmetic, without starting a judge: how many calls each window holds."""

from runner.judge.loop import JUDGE_WINDOW_S, window_calls


def sized(estimate, **given):
    args = {"slots": 2048, "window_s": 0.02, "judge_cost_s": 1e-5, "calls_left": 10_000} | given
    return window_calls(estimate, **args)


def test_the_first_window_is_one_call_alone_whatever_else_allows():
    assert sized(None) == 1
    assert sized(None, snapshots=0) == 1


def test_a_window_lasts_about_its_target_time():
    assert sized(1e-4) == 200  # 20 ms of 100 us calls
    assert sized(1.0) == 1  # a call longer than the window: one call, never none


def test_each_bound_holds_the_window_back():
    assert sized(1e-6, slots=64) == 64  # no more calls than the slots laid out
    assert sized(1e-6, judge_cost_s=JUDGE_WINDOW_S / 10) == 10  # no more than the judge checks in 0.25 s
    assert sized(1e-6, calls_left=7) == 7  # no more than the case's calls left
    assert sized(1e-6, calls_left=0) == 1
    assert sized(1e-6, snapshots=3) == 3  # GPU: no more outputs than fit for checking
