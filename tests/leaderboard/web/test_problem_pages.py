"""The problem list and a problem's page: statement, reference, cases, templates, rankings (from the
platform's rankings selector, agents marked), the best score over time."""

from __future__ import annotations

import re

import pytest


def test_problem_list_shows_best_per_device_kind_and_entrants(client, alice, bob, robo, judged):
    judged(alice, score_s=3e-3)
    judged(alice, score_s=2e-3)  # alice's better entry
    judged(robo, score_s=1e-3)
    judged(bob, score_s=5e-5, device_kind="h100")
    judged(bob, score_s=1e-4, mode="benchmark")  # does not rank
    page = client.get("/")
    assert page.status_code == 200
    html = page.content.decode()
    row = html[html.index("Vector addition") :].split("</tr>")[0]
    assert "<b>cpu</b> 1 ms" in row and "(2)" in row  # best on cpu, 2 ranked users
    assert "<b>h100</b> 50 us" in row and "(1)" in row
    assert re.search(r'<td class="num">3</td>', row)  # alice, robo and bob rank somewhere
    assert "TriMul" in html and "no ranked entries yet" in html


def test_problem_page_statement_reference_cases_templates(client, problems):
    page = client.get("/problems/vectoradd/")  # the rankings tab first
    assert page.status_code == 200
    html = page.content.decode()
    assert "No ranked entries yet" in html and "no ranked submissions yet" in html  # empty plot says so
    html = client.get("/problems/vectoradd/?tab=statement").content.decode()
    assert "<h2>Vector addition</h2>" not in html  # the statement's own title: the h1 says it
    assert "drawn afresh for every call" in html  # the statement's text
    assert "<code>custom_kernel(data)</code>" in html
    assert "/problems/vectoradd/templates/pytorch.py" in html
    html = client.get("/problems/vectoradd/?tab=reference").content.decode()
    assert 'class="highlight"' in html and "generate_input" in html  # the reference, highlighted
    html = client.get("/problems/vectoradd/?tab=cases").content.decode()
    assert re.search(r"<td>benchmark</td><td>cpu</td><td>2048</td><td class=\"num\">5239</td>", html)
    assert "<td>16384</td>" in html  # and a cuda one


def test_template_download(client, problems):
    response = client.get("/problems/vectoradd/templates/pytorch.py")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="vectoradd_pytorch.py"'
    assert "def custom_kernel" in response.content.decode()
    assert client.get("/problems/vectoradd/templates/nope.py").status_code == 404
    assert client.get("/problems/nope/").status_code == 404


def test_rankings_mark_agents_and_keep_ineligible_runs_out(client, alice, bob, robo, judged, floor_flag):
    judged(alice, score_s=2e-3)
    judged(robo, score_s=1e-3)
    judged(bob, score_s=1e-7, verdict="flagged", flags=[floor_flag])  # flagged: kept out
    judged(bob, score_s=1e-6, mode="test")  # test mode never ranks
    html = client.get("/problems/vectoradd/").content.decode()
    table = html[html.index('data-device="cpu"') :].split("</table>")[0]
    rows = table.split("<tr")[2:]
    assert len(rows) == 2
    assert "robo" in rows[0] and "badge agent" in rows[0] and "1 ms" in rows[0]
    assert "alice" in rows[1] and "badge agent" not in rows[1]
    assert "bob" not in table


def test_best_score_over_time_plot_has_axes_with_units(client, alice, robo, judged):
    judged(alice, score_s=2e-3)
    judged(robo, score_s=1e-3)
    judged(alice, score_s=4e-3)  # not a record: no step
    html = client.get("/problems/vectoradd/").content.decode()
    svg = html[html.index('<svg class="plot"') : html.index("</svg>")]
    assert "Best score over time" in svg
    assert "best score (geometric-mean time per call)" in svg and "time of the submission (UTC)" in svg
    assert re.search(r">\d+ ms<", svg)  # y ticks carry their unit
    assert svg.count("<circle") == 2  # two records: alice's 2 ms, then robo's 1 ms


def test_the_cached_standings_follow_new_runs_and_staff_decisions(
    client, alice, bob, staff, judged, floor_flag
):
    judged(alice, score_s=2e-3)
    assert "alice" in client.get("/problems/vectoradd/").content.decode()
    judged(bob, score_s=1e-3)  # a new run: on the page at once
    table = (
        client.get("/problems/vectoradd/").content.decode().split('data-device="cpu"')[1].split("</table>")[0]
    )
    assert table.index("bob") < table.index("alice")

    from leaderboard.submissions.review import submission_accept_flagged

    flagged = judged(staff, score_s=1e-7, verdict="flagged", flags=[floor_flag])
    assert (
        "staff"
        not in client.get("/problems/vectoradd/")
        .content.decode()
        .split("<h2>Rankings")[1]
        .split("</section>")[0]
    )
    submission_accept_flagged(submission_id=flagged.pk, reviewer=staff)  # no new run: a new generation
    rankings = (
        client.get("/problems/vectoradd/").content.decode().split("<h2>Rankings")[1].split("</section>")[0]
    )
    assert rankings.index("staff") < rankings.index("bob")


def test_difficulty_and_tags_from_about_toml_on_the_list_and_the_page(client, problems):
    html = client.get("/").content.decode()
    row = html[html.index("Vector addition") :].split("</tr>")[0]
    assert '<span class="badge easy difficulty" title="difficulty">easy</span>' in row
    assert '<span class="chip tag">memory-bound</span>' in row
    trimul = html[html.index("TriMul") :].split("</tr>")[0]
    assert ">hard</span>" in trimul and '<span class="chip tag">alphafold</span>' in trimul
    page = client.get("/problems/matmul/").content.decode()
    meta = page[page.index('<p class="meta">') :].split("</p>")[0]
    assert ">medium</span>" in meta and '<span class="chip tag">tensor-cores</span>' in meta


def test_about_toml_is_read_and_is_no_part_of_the_version(tmp_path):
    import shutil

    from runner.problem import Problem

    folder = tmp_path / "vectoradd"
    shutil.copytree("problems/vectoradd", folder, ignore=shutil.ignore_patterns("solutions", "__pycache__"))
    before = Problem.at(folder)
    (folder / "about.toml").write_text('difficulty = "hard"\ntags = ["retagged"]\n')
    after = Problem.at(folder)
    assert (after.about.difficulty, after.about.tags) == ("hard", ("retagged",))
    assert after.version == before.version  # a retagged problem keeps its scores
    (folder / "about.toml").write_text('difficulty = "trivial"\n')
    with pytest.raises(ValueError, match="easy, medium, hard"):
        _ = Problem.at(folder).about


def test_the_cases_tab_shows_each_cases_flop_and_byte_counts(client, problems):
    html = client.get("/problems/vectoradd/?tab=cases").content.decode()
    # vectoradd's counts(): size^2 adds, 3 fp16 matrices moved; the cpu benchmark of size 2048:
    row = re.search(r"<td>benchmark</td><td>cpu</td><td>2048</td>.*?</tr>", html)[0]
    assert '<td class="num case-flops">4.19 M</td><td class="num case-bytes">24 MiB</td>' in row
    assert "<th" in html and ">FLOP</th>" in html and ">Bytes</th>" in html


def test_rankings_show_each_entrys_flops_and_share_of_the_peak(client, alice, robo, judged):
    judged(alice, score_s=2e-3)
    judged(robo, score_s=1e-3)
    judged(alice, score_s=1e-5, device_kind="h100")
    html = client.get("/problems/vectoradd/").content.decode()
    table = html[html.index('data-device="cpu"') :].split("</table>")[0]
    rows = table.split("<tr")[2:]
    # The judged runs' secret case: 65536 FLOP and 393216 bytes per call, over its median time; the cpu
    # kind's peaks are 100 GFLOP/s and 33.9 GB/s.
    assert "robo" in rows[0] and '<td class="num mono wide-only entry-flops">65.5 MFLOP/s<br>' in rows[0]
    assert '<span class="hint">0.0655 %</span>' in rows[0]
    assert (
        '<td class="num mono wide-only entry-bytes">393 MB/s<br><span class="hint">1.16 %</span>' in rows[0]
    )
    assert "alice" in rows[1] and "32.8 MFLOP/s" in rows[1]
    h100 = client.get("/problems/vectoradd/?tab=rankings&device=h100").content.decode()
    row = h100[h100.index('data-device="h100"') :].split("</table>")[0].split("<tr")[2]
    assert "6.55 GFLOP/s" in row and "39.3 GB/s" in row and '<span class="hint">1.17 %</span>' in row


def test_rankings_of_a_problem_without_counts_show_no_rate_columns(client, alice, judged):
    from leaderboard.submissions.models import RunCase

    judged(alice, score_s=2e-3)
    for case in RunCase.objects.all():  # as an imported problem's run: no counts, so no rates
        case.stats = {k: v for k, v in (case.stats or {}).items() if k not in ("flops_per_s", "bytes_per_s")}
        case.save()
    html = client.get("/problems/vectoradd/").content.decode()
    assert "entry-flops" not in html and ">FLOP/s<br>" not in html
