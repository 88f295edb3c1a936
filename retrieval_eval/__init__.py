"""Offline evaluation of the serving layer (retrieval quality over a published bundle): the twin of ``ner_eval``.

The question sets live beside the code: ``questions/dev.jsonl`` (tuned on) and ``questions/heldout.jsonl``.
"""

from pathlib import Path

QUESTIONS_DIR = Path(__file__).resolve().parent / "questions"
DEV_QUESTIONS = QUESTIONS_DIR / "dev.jsonl"
HELDOUT_QUESTIONS = QUESTIONS_DIR / "heldout.jsonl"
BLIND_QUESTIONS = QUESTIONS_DIR / "blind.jsonl"  # evaluated once per release, never tuned on (questions/BLIND.md)
