"""A small JSON-over-HTTP client of the API (urllib)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


class ApiError(Exception):
    """The server said no, or could not be reached; `message` is for the user."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message, self.status = message, status


class ApiClient:
    def __init__(self, url: str, token: str | None = None, timeout_s: float = 30.0) -> None:
        self.url, self.token, self.timeout_s = url.rstrip("/"), token, timeout_s

    def get(self, path: str) -> Any:
        return json.loads(self._request("GET", path) or b"null")

    def get_text(self, path: str) -> str:
        """A document that is not JSON (a profile's CSV), as text."""
        return self._request("GET", path, accept="text/csv, */*").decode("utf-8")

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return json.loads(self._request("POST", path, body) or b"null")

    def _request(
        self, method: str, path: str, body: dict[str, Any] | None = None, accept: str = "application/json"
    ) -> bytes:
        headers = {"Accept": accept, "User-Agent": "kernelboard-cli"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            raise ApiError(_error_message(exc), exc.code) from None
        except urllib.error.URLError as exc:
            raise ApiError(
                f"Could not reach the server at {self.url} ({exc.reason}). Is it running? "
                "(`python manage.py serve` starts one; KERNELBOARD_URL points elsewhere.)"
            ) from None
        except TimeoutError:
            raise ApiError(f"The server at {self.url} did not answer within {self.timeout_s:g} s.") from None


def _error_message(exc: urllib.error.HTTPError) -> str:
    raw = exc.read()
    try:
        doc = json.loads(raw)
        message = doc.get("message") or doc.get("detail") or raw.decode(errors="replace")
    except (ValueError, AttributeError):
        message = raw.decode(errors="replace").strip()[:300] or exc.reason
    return f"{message} (HTTP {exc.code})"
