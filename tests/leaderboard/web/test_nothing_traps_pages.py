"""The pages' side of "nothing traps" and of the tokens page: the submit form says which device kinds a worker
serves and the wait, and refuses the others in words; the author cancels a queued submission from its page;
the tokens page gives a copy button and the server's address for KERNELBOARD_URL. (The browser walks the
same in tests/leaderboard/web/test_browser_trap.py.)"""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from leaderboard.submissions.models import State, Submission
from leaderboard.submissions.services import worker_beat

SOURCE = "def custom_kernel(data):\n    A, B, C = data\n    return A + B\n"


def _form(**changes):
    return {
        "problem": "vectoradd",
        "language": "pytorch",
        "device_kind": "cpu",
        "mode": "test",
        "source": SOURCE,
        **changes,
    }


@pytest.fixture
def cpu_served(db, settings):
    settings.SUBMISSION_REFUSE_UNSERVED = True
    worker_beat(name="cpu@test", device_kinds=["cpu"], started_at=timezone.now())


def test_the_form_says_which_device_kinds_are_served(as_user, alice, problems, cpu_served):
    html = as_user(alice).get("/submit/?problem=vectoradd").content.decode()
    assert '<option value="cpu" selected>cpu (1 worker, free: a submission starts at once)</option>' in html
    assert '<option value="h100">h100 (no worker now: submissions are refused)</option>' in html
    assert re.search(r'<li class="device-kind unserved" data-kind="h100"><b>h100</b>.*no worker now', html)


def test_a_device_kind_without_a_worker_is_refused_on_the_form(as_user, alice, problems, cpu_served):
    response = as_user(alice).post("/submit/", _form(device_kind="h100"))
    assert response.status_code == 503
    assert "No worker judges the h100 device kind now" in response.content.decode()
    assert not Submission.objects.exists()


def test_the_author_cancels_a_queued_submission_from_its_page(as_user, alice, bob, submit):
    submission = submit(alice)
    page = as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    assert f'action="/submissions/{submission.pk}/cancel"' in page
    assert "Cancel this submission" in as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    assert "Cancel this submission" not in as_user(bob).get(f"/submissions/{submission.pk}/").content.decode()
    assert as_user(bob).post(f"/submissions/{submission.pk}/cancel").status_code == 404
    response = as_user(alice).post(f"/submissions/{submission.pk}/cancel", follow=True)
    html = response.content.decode()
    assert f"Submission #{submission.pk} is cancelled: it will not be judged." in html
    assert '<span id="state-badge" class="badge cancelled">cancelled</span>' in html
    assert "Cancelled by its author before it was judged." in html
    assert "Cancel this submission" not in html
    assert Submission.objects.get(pk=submission.pk).state == State.CANCELLED
    again = as_user(alice).post(f"/submissions/{submission.pk}/cancel", follow=True).content.decode()
    assert "is cancelled already: only a queued one can be cancelled" in again


def test_a_queued_submission_no_worker_serves_says_so(as_user, alice, submit):
    submission = submit(alice, device_kind="h100")
    status = as_user(alice).get(f"/submissions/{submission.pk}/status.json").json()
    assert status["unserved"] is True
    html = as_user(alice).get(f"/submissions/{submission.pk}/").content.decode()
    assert '<span id="live-unserved"> · <b>no worker serves h100 now</b>' in html


def test_the_tokens_page_has_a_copy_button_and_the_servers_address(as_user, alice):
    client = as_user(alice)
    html = client.get("/account/tokens/").content.decode()
    assert "export KERNELBOARD_URL=http://testserver\nexport KERNELBOARD_TOKEN=kb_..." in html
    assert 'url = "http://testserver"' in html
    html = client.post("/account/tokens/", {"name": "laptop"}, follow=True).content.decode()
    token = re.search(r'<pre class="token mono" id="new-token">(kb_[^<]+)</pre>', html)[1]
    assert (
        '<button class="button small" type="button" id="copy-token" data-copy="new-token">Copy</button>'
        in html
    )
    assert f"export KERNELBOARD_TOKEN={token}" in html
    assert "web/copy.js" in html


def test_staff_see_the_workers_in_the_admin(as_user, staff, cpu_served):
    html = as_user(staff).get("/admin/submissions/worker/").content.decode()
    assert "cpu@test" in html and 'alt="True"' in html  # serving
