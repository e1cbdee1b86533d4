"""Where the client finds its server and token: the environment first, then a TOML file.

~/.config/kernelboard/config.toml (or $XDG_CONFIG_HOME/kernelboard/config.toml):
    url = "https://kernelboard.example.org"
    token = "kb_..."
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

DEFAULT_URL = "http://127.0.0.1:8000"


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kernelboard" / "config.toml"


@dataclass(frozen=True)
class ClientConfig:
    url: str
    token: str | None
    source: str  # where the token came from, for messages


def load_config(url: str | None = None) -> ClientConfig:
    """KERNELBOARD_URL and KERNELBOARD_TOKEN win over the file; `url` (a --url flag) wins over both."""
    path = config_path()
    data: dict = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise SystemExit(f"kernelboard: {path} is not valid TOML: {exc}") from None
    token = os.environ.get("KERNELBOARD_TOKEN") or data.get("token")
    source = "KERNELBOARD_TOKEN" if os.environ.get("KERNELBOARD_TOKEN") else str(path)
    chosen = url or os.environ.get("KERNELBOARD_URL") or data.get("url") or DEFAULT_URL
    return ClientConfig(url=chosen.rstrip("/"), token=token, source=source)
