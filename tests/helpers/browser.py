"""Headless Chromium for the report tests: a page rendered as a user's browser renders it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def chromium() -> str | None:
    """The browser's executable, or None (`.ci/run` installs Debian's chromium)."""
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def screenshot(page: Path, shot: Path, profile: Path, size: str = "1200,2000") -> Path:
    """A PNG of `page` at `size` (width,height), offline and with a throwaway profile."""
    subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={profile}", f"--screenshot={shot}", f"--window-size={size}",
                    page.as_uri()], check=True, capture_output=True, timeout=180)
    return shot
