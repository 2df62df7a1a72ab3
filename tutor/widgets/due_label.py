"""When a concept comes back for review, in words: "due now", "in 3 days", "new"."""
from __future__ import annotations

from datetime import datetime

from tutor.i18n import t


def due_label(due: datetime | None, now: datetime, lang: str) -> str:
    """`due` relative to `now`, rounded to the unit a learner plans with (minutes, hours, days)."""
    if due is None:
        return t("due_new", lang)
    seconds = (due - now).total_seconds()
    if seconds <= 0:
        return t("due_now", lang)
    minutes = round(seconds / 60)
    if minutes < 60:
        return t("due_minutes", lang, n=max(minutes, 1))
    hours = round(seconds / 3600)
    if hours < 48:
        return t("due_hours", lang, n=hours)
    return t("due_days", lang, n=round(seconds / 86400))
