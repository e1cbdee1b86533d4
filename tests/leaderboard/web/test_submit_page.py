"""The submit page: log-in first, paste or upload, the service's refusals in words, the limits, CSRF."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from leaderboard.submissions.models import Submission
from leaderboard.submissions.services import worker_beat

TEMPLATE = "def custom_kernel(data):\n    A, B, C = data\n    return A + B\n"


def _form(**changes):
    return {
        "problem": "vectoradd",
        "language": "pytorch",
        "device_kind": "cpu",
        "mode": "test",
        "source": TEMPLATE,
        **changes,
    }


def test_submitting_needs_a_login(client, problems):
    response = client.get("/submit/")
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=/submit/")


def test_the_page_shows_choices_and_limits(as_user, alice, problems):
    html = as_user(alice).get("/submit/?problem=vectoradd&template=pytorch.py").content.decode()
    assert 'value="vectoradd" selected' in html
    assert "torch.add(A, B, out=C)" in html  # the template, ready to edit
    assert "1 MiB" in html and "900 s" in html and "16 GiB" in html  # source size, wall limit, memory
    for choice in ("h100", "leaderboard", "triton"):
        assert f'value="{choice}"' in html


def test_paste_and_submit(as_user, alice, problems, no_limits):
    response = as_user(alice).post("/submit/", _form())
    submission = Submission.objects.get(user=alice)
    assert response.status_code == 302 and response["Location"] == f"/submissions/{submission.pk}/"
    assert submission.state == "queued" and submission.mode == "test" and submission.source.text == TEMPLATE


def test_upload_replaces_the_pasted_text(as_user, alice, problems, no_limits):
    upload = SimpleUploadedFile("mine.py", b"def custom_kernel(data):\n    return data[0] + data[1]\n")
    as_user(alice).post("/submit/", _form(source="", upload=upload))
    assert "data[0] + data[1]" in Submission.objects.get(user=alice).source.text


def test_a_binary_upload_is_refused_in_words(as_user, alice, problems):
    upload = SimpleUploadedFile("kernel.so", b"\x7fELF\x00\xff\xfe")
    response = as_user(alice).post("/submit/", _form(source="", upload=upload))
    assert response.status_code == 400 and "kernel.so is not UTF-8 text" in response.content.decode()
    assert not Submission.objects.exists()


def test_refusals_of_the_service_are_shown(as_user, alice, problems, settings):
    cuda = "from torch.utils.cpp_extension import load_inline\n" + TEMPLATE
    response = as_user(alice).post("/submit/", _form(language="cuda", source=cuda))
    assert response.status_code == 400
    assert "CUDA submissions need a GPU" in response.content.decode()
    settings.SUBMISSION_MAX_IN_FLIGHT = 1
    settings.SUBMISSION_MAX_PER_HOUR = 0
    # A worker serves cpu: queued submissions it cannot run would not count (test_nothing_traps_pages.py).
    worker_beat(name="cpu@test", device_kinds=["cpu"], started_at=timezone.now())
    c = as_user(alice)
    assert c.post("/submit/", _form()).status_code == 302
    second = c.post("/submit/", _form())
    assert second.status_code == 429 and "the most allowed at once" in second.content.decode()
    empty = c.post("/submit/", _form(source="   "))
    assert empty.status_code == 400 and "Paste your source or upload a file" in empty.content.decode()


def test_a_post_without_the_csrf_token_is_refused(alice, problems):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post("/submit/", _form()).status_code == 403
    assert not Submission.objects.exists()
    # With the token the page gave it, the same post goes through.
    client.get("/submit/")
    token = client.cookies["csrftoken"].value
    assert client.post("/submit/", _form(csrfmiddlewaretoken=token)).status_code == 302


def test_a_pasted_source_is_stored_with_the_files_line_endings(as_user, alice, problems, no_limits):
    as_user(alice).post("/submit/", _form(source=TEMPLATE.replace("\n", "\r\n")))
    stored = Submission.objects.get(user=alice).source
    assert stored.text == TEMPLATE and "\r" not in stored.text
