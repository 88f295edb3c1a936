"""What the per-label recognisers share."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def whole_surface_norm(surface: str, candidates: Callable[[str], Iterable[tuple]]) -> str | None:
    """Norm of the first candidate that spans the whole (stripped) surface, else None."""
    if not isinstance(surface, str):
        return None
    text = surface.strip()
    return next((norm for start, end, _, norm in candidates(text) if start == 0 and end == len(text)), None)
