"""Offline evaluation of search quality over a published bundle, the twin of ``ner_eval``; the question sets are in
``questions/`` (docs/retrieval.md says what each is for).
"""

from pathlib import Path

QUESTIONS_DIR = Path(__file__).resolve().parent / "questions"
DEV_QUESTIONS = QUESTIONS_DIR / "dev.jsonl"
HELDOUT_QUESTIONS = QUESTIONS_DIR / "heldout.jsonl"
BLIND_QUESTIONS = QUESTIONS_DIR / "blind.jsonl"  # evaluated once per release, never tuned on (questions/BLIND.md)
