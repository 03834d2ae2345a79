"""Whether the Hugging Face Hub can be reached, asked once in about two seconds.

Offline, huggingface_hub retries every file request before it gives up (`validate --tokenizer` waited
~50 s, `prepare openai/gsm8k` ~24 s, in a dozen retry lines) and only then says one sentence. What is
about to fetch from the hub asks here first: an unreachable hub is then a fast answer (the local cache,
or one line with the hint to set HF_HUB_OFFLINE=1). HF_HUB_OFFLINE set means: do not ask.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

TIMEOUT = 2.0
OFFLINE_HINT = "set HF_HUB_OFFLINE=1 to use the local Hugging Face cache without waiting for the network"


def hub_offline_set() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def hub_unreachable(timeout: float = TIMEOUT) -> str | None:
    """Why the hub (HF_ENDPOINT, or through HTTPS_PROXY) cannot be reached, or None when it answers a
    TCP connection, or when HF_HUB_OFFLINE is set (nothing will be fetched then)."""
    if hub_offline_set():
        return None
    proxy = os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy")
    url = urlsplit(proxy if proxy else os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host = url.hostname or "huggingface.co"
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        return f"cannot reach {host}:{port}: {exc.strerror or exc}"
    return None
