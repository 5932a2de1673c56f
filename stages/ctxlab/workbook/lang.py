"""The learner's language: English, or Chinese for the guide's own readers (issue 36).

``CTXLAB_LANG`` decides when set (``zh`` or ``zh_CN`` → Chinese, anything else → English);
otherwise the POSIX locale does, read as the C library reads it: the first set one of
``LC_ALL``, ``LC_MESSAGES``, ``LANG``. A locale ``zh_*`` (``zh_CN.UTF-8``, ``zh_TW``) is Chinese.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ENGLISH, CHINESE = "en", "zh"


def language(environ: Mapping[str, str] | None = None) -> str:
    """``"zh"`` or ``"en"`` for this process's environment."""
    env = os.environ if environ is None else environ
    chosen = env.get("CTXLAB_LANG", "").strip()
    if not chosen:
        chosen = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    return CHINESE if chosen.lower().replace("-", "_").split("_")[0] == "zh" else ENGLISH


def chinese(environ: Mapping[str, str] | None = None) -> bool:
    """True when the learner reads Chinese."""
    return language(environ) == CHINESE
