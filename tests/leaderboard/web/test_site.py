"""The site as a whole (issue 14, items 6 and 7): error pages in the site's layout (JSON under /api/), a
favicon, dark mode's pieces, tables in scrolling boxes, the agent-run pages in the layout, HEAD on pages,
the Content-Security-Policy and the templates it allows, and no host paths on public pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = [
    *(ROOT / "leaderboard" / "web" / "templates").rglob("*.html"),
    *(ROOT / "leaderboard" / "agentruns" / "templates").rglob("*.html"),
]
NAV = '<header class="site">'


# --- error pages ------------------------------------------------------------------------------------------


def test_a_missing_page_is_a_page_of_the_site(client, db):
    response = client.get("/no-such-page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert NAV in html and 'id="error"' in html and "There is no page at /no-such-page/." in html
    assert "site.css" in html


def test_a_views_own_404_words_are_shown(client, problems):
    response = client.get("/problems/no-such-problem/")
    assert response.status_code == 404 and NAV in response.content.decode()
    assert "no-such-problem" in response.content.decode()


def test_the_api_keeps_its_json_errors(client, db):
    response = client.get("/api/no-such-endpoint")
    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")
    assert response.json()["error"] == "not_found"


def test_a_bad_request_is_a_page_of_the_site(db):
    response = Client(HTTP_HOST="evil.example").get("/")  # DisallowedHost: Django's 400
    assert response.status_code == 400
    html = response.content.decode()
    assert NAV in html and "Bad request" in html and "Bad Request (400)" not in html


def test_a_csrf_refusal_is_a_page_of_the_site_in_words(db):
    response = Client(enforce_csrf_checks=True).post("/signup/", {"username": "x"})
    assert response.status_code == 403
    html = response.content.decode()
    assert NAV in html and "security token (CSRF)" in html


def test_permission_denied_is_a_page_of_the_site(rf, db):
    from django.contrib.auth.models import AnonymousUser

    from leaderboard import urls
    from leaderboard.server.views import permission_denied

    assert urls.handler403 == "leaderboard.server.views.permission_denied"
    request = rf.get("/somewhere/")
    request.user = AnonymousUser()
    response = permission_denied(request)
    assert response.status_code == 403 and NAV in response.content.decode()
    api = permission_denied(rf.get("/api/submissions"))
    assert api.status_code == 403 and api["Content-Type"] == "application/json"


def _boom(request):
    raise RuntimeError("a bug")


def _urlconf():
    """This module is also a URLconf: the real one plus a view that fails."""
    from django.urls import path

    from leaderboard import urls

    return [path("boom/", _boom), *urls.urlpatterns]


urlpatterns = _urlconf()
handler500 = "leaderboard.server.views.server_error"


@pytest.mark.urls(__name__)
def test_a_server_error_is_a_page_of_the_site(db):
    from leaderboard import urls

    assert urls.handler500 == handler500
    response = Client(raise_request_exception=False).get("/boom/")
    assert response.status_code == 500
    html = response.content.decode()
    assert NAV in html and "failed to answer this request" in html and "a bug" not in html


# --- favicon, dark mode, layout ---------------------------------------------------------------------------


def test_the_favicon_is_an_svg_of_the_site(client, db):
    html = client.get("/").content.decode()
    assert '<link rel="icon" type="image/svg+xml" href="/static/web/favicon.svg">' in html
    icon = client.get("/static/web/favicon.svg")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(icon.streaming_content)


def test_dark_mode_follows_the_browser_and_has_a_toggle(client, db):
    html = client.get("/").content.decode()
    assert (
        '<script src="/static/web/theme.js"></script>' in html.split("</head>")[0]
    )  # before the body paints
    assert 'id="theme-toggle"' in html
    css = (ROOT / "leaderboard" / "web" / "static" / "web" / "site.css").read_text()
    assert "@media (prefers-color-scheme: dark)" in css and ":root[data-theme=dark]" in css
    assert ":root:not([data-theme=light])" in css  # a visitor's choice of light beats the browser's dark
    js = (ROOT / "leaderboard" / "web" / "static" / "web" / "theme.js").read_text()
    assert "localStorage" in js and "prefers-color-scheme: dark" in js
    assert client.get("/static/web/theme.js").status_code == 200


def test_every_table_scrolls_inside_its_own_box():
    for template in TEMPLATES:
        text = template.read_text()
        if "admin/" in str(template.relative_to(ROOT)):
            continue
        tables = len(re.findall(r"<table\b", text))
        wrapped = len(re.findall(r'<div class="table-wrap">\s*<table\b', text))
        assert tables == wrapped, f"{template}: {tables} tables, {wrapped} in a scrolling box"


def test_agent_run_pages_are_in_the_sites_layout(client, db):
    html = client.get("/agents/").content.decode()
    assert NAV in html and "site.css" in html and "<style" not in html
    assert '<div class="table-wrap"><table class="list">' in html


# --- HEAD -------------------------------------------------------------------------------------------------


def test_pages_answer_head(client, as_user, alice, problems):
    for path in ("/", "/problems/vectoradd/", f"/users/{alice.username}/", "/agents/", "/signup/", "/login/"):
        assert client.head(path).status_code == 200, path
    assert as_user(alice).head("/submit/").status_code == 200
    assert as_user(alice).head("/account/tokens/").status_code == 200


# --- Content-Security-Policy ------------------------------------------------------------------------------


def _policy(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";"))


def test_every_page_carries_the_content_security_policy(client, as_user, alice, problems, judged):
    submission = judged(alice)
    pages = [
        client.get("/"),
        client.get("/problems/vectoradd/"),
        client.get(f"/submissions/{submission.pk}/"),
        client.get("/no-such-page/"),
        client.get("/agents/"),
        as_user(alice).get("/submit/"),
        client.get("/api/docs"),
    ]
    for response in pages:
        policy = _policy(response)
        assert policy["default-src"] == "'self'", response.request["PATH_INFO"]
        assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
        assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
        assert "unsafe-inline" not in response["Content-Security-Policy"]


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
INLINE_HANDLER = re.compile(r"\son[a-z]+\s*=", re.I)


def test_no_template_has_inline_script_or_style():
    for template in TEMPLATES:
        text = template.read_text()
        assert not INLINE_SCRIPT.search(text), f"{template}: an inline <script> (the CSP blocks it)"
        assert "style=" not in text and "<style" not in text, f"{template}: inline style (the CSP blocks it)"
        assert not INLINE_HANDLER.search(text), f"{template}: an inline event handler"


def test_rendered_pages_have_no_inline_script_or_style(client, as_user, alice, problems, judged):
    submission = judged(alice)  # its page has the case plot (inline SVG)
    for response in (
        client.get("/problems/vectoradd/"),
        client.get(f"/submissions/{submission.pk}/"),
        as_user(alice).get("/submit/"),
        client.get("/agents/"),
    ):
        html = response.content.decode()
        assert response.status_code == 200
        assert not INLINE_SCRIPT.search(html) and "style=" not in html and "<style" not in html
    assert "<svg" in client.get(f"/submissions/{submission.pk}/").content.decode()


def test_the_api_docs_work_under_the_policy(client, db):
    response = client.get("/api/docs")
    html = response.content.decode()
    assert response.status_code == 200 and not INLINE_SCRIPT.search(html)
    for src in re.findall(r'<script src="([^"]+)"', html):
        assert client.get(src).status_code == 200, src


# --- no host paths on public pages ------------------------------------------------------------------------

HOST_ENV = {
    "python": "3.11.2",
    "torch": "2.13.0+cpu",
    "device": "cpu: test machine",
    "device_kind": "cpu",
    "sys_executable": "/work/secret-place/.venv/bin/python",
    "runner_image": "none (not in a container image)",
}


def test_the_public_environment_record_shows_no_host_paths(client, alice, problems, judged):
    submission = judged(
        alice,
        verdict="failed",
        env=HOST_ENV,
        case_message='Traceback: File "/work/secret-place/runner/judge/cases.py", line 3: wrong',
    )
    response = client.get(f"/submissions/{submission.pk}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "/work/" not in html and "secret-place" not in html and ".venv" not in html
    assert "3.11.2" in html and "2.13.0+cpu" in html  # what a competitor needs stays
    assert "…/cases.py" in html  # the case's message keeps the file's name
    status = client.get(f"/submissions/{submission.pk}/status.json").json()
    assert "/work/" not in (status["message"] or "")


def test_redact_paths_cuts_paths_and_leaves_urls_and_words():
    from leaderboard.web.presentation import public_env, redact_paths

    assert redact_paths("/usr/lib/python3.11/site.py line 3") == "…/site.py line 3"
    assert redact_paths("see https://example.org/a/b and a/b") == "see https://example.org/a/b and a/b"
    assert redact_paths("3/4 passed, 1 KiB/s") == "3/4 passed, 1 KiB/s"
    assert dict(public_env(HOST_ENV)).keys() == HOST_ENV.keys() - {"sys_executable"}
