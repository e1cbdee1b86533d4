"""The pages need nothing from outside the site: no CDN, and the highlighting's stylesheet is current."""

from pathlib import Path

from leaderboard.web.code import pygments_css, pygments_dark_css

WEB = Path(__file__).resolve().parents[3] / "leaderboard" / "web"


def test_no_page_loads_anything_from_elsewhere():
    for template in (WEB / "templates").rglob("*.html"):
        text = template.read_text()
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, template


def test_the_pygments_stylesheet_matches_pygments():
    assert pygments_css() in (WEB / "static" / "web" / "pygments.css").read_text()
    assert pygments_dark_css() == (WEB / "static" / "web" / "pygments-dark.css").read_text()


def test_static_files_are_served_by_the_site(client, db):
    for name in (
        "site.css",
        "pygments.css",
        "pygments-dark.css",
        "theme.js",
        "favicon.svg",
        "submission.js",
        "submit.js",
    ):
        response = client.get(f"/static/web/{name}")
        assert response.status_code == 200, name
