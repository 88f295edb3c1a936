"""Summaries: extractive by default, bottom-up (sections -> document); the optional LLM summariser speaks the
OpenAI chat-completions protocol to a local stub server, and falls back to the extractive summary when the
endpoint fails."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg
import pytest

from mendel.index.corpus import load_layer
from mendel.nightly import chunk_stage
from mendel.passages.chunking import build_layers
from mendel.passages.summaries import (
    ELLIPSIS,
    SUMMARY_CHARS,
    ExtractiveSummarizer,
    OpenAICompatibleSummarizer,
    get_summarizer,
    summarize_document,
)
from tests.support.index import add_document, law_pages, ns_decisions

LLM_ANSWER = (
    "Zákon mění občanský soudní řád a zákon o soudních poplatcích v řízení o vyklizení bytu; "
    "stanoví adresu pro doručování nájemci a poplatky."
) * 2  # longer than 150: must be cut


@pytest.fixture(scope="module")
def law() -> list[str]:
    return law_pages("176-2025", 4)


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def test_extractive_summaries_are_short_sentences_of_the_text(law):
    layers = build_layers(law)
    summarizer = ExtractiveSummarizer()
    for section in layers.sections:
        summary = summarizer.summarize([section.text])
        assert 0 < len(summary) <= SUMMARY_CHARS
        source = _collapsed(section.text)
        for piece in re.split(r"(?<=[.!?]) ", summary.removesuffix(ELLIPSIS)):
            assert piece.strip() in source, (piece, source[:300])


def test_a_descriptive_title_guides_the_document_summary(law):
    title = "Zákon, kterým se mění zákon č. 99/1963 Sb., občanský soudní řád, a zákon o soudních poplatcích"
    summary = summarize_document([s.text for s in build_layers(law).sections], ExtractiveSummarizer(), title=title)
    assert len(summary.document) <= SUMMARY_CHARS
    assert "občanský soudní řád" in summary.document or "soudních poplatcích" in summary.document
    assert summary.document in summary.sections or summary.document.removesuffix(ELLIPSIS) in " ".join(summary.sections)


class RecordingSummarizer:
    name = "recording"

    def __init__(self):
        self.calls: list[list[str]] = []

    def summarize(self, parts, *, context="", max_chars=SUMMARY_CHARS):
        self.calls.append(list(parts))
        return f"summary {len(self.calls)}"


def test_document_summary_is_made_from_the_section_summaries():
    decision = max(ns_decisions(), key=lambda r: len(r["full_text"]))
    sections = [s.text for s in build_layers([decision["full_text"]]).sections]
    recorder = RecordingSummarizer()
    result = summarize_document(sections, recorder, title=decision["title"])
    assert recorder.calls[:-1] == [[text] for text in sections]  # bottom-up: each section from its text
    assert recorder.calls[-1] == [f"summary {i}" for i in range(1, len(sections) + 1)]  # then the document
    assert result.document == f"summary {len(sections) + 1}"


# --- the OpenAI-compatible summariser against a local stub ---------------------------------------------------


class StubChatServer:
    """A local chat-completions endpoint: answers with ``answer`` or fails with ``status``; keeps the requests."""

    def __init__(self):
        self.requests: list[dict] = []
        self.status = 200
        self.answer = LLM_ANSWER
        self.raw_body: bytes | None = None
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", 0))
                stub.requests.append(
                    {
                        "path": self.path,
                        "authorization": self.headers.get("Authorization"),
                        "body": json.loads(self.rfile.read(length)),
                    }
                )
                body = (
                    stub.raw_body
                    if stub.raw_body is not None
                    else json.dumps(
                        {
                            "id": "stub",
                            "object": "chat.completion",
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": stub.answer},
                                    "finish_reason": "stop",
                                }
                            ],
                        }
                    ).encode()
                )
                self.send_response(stub.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub():
    with StubChatServer() as running:
        yield running


def test_llm_summariser_is_off_by_default_and_configured_from_the_environment(stub):
    assert isinstance(get_summarizer({}), ExtractiveSummarizer)
    summarizer = get_summarizer(
        {
            "MENDEL_SUMMARY_LLM_URL": stub.url,
            "MENDEL_SUMMARY_LLM_MODEL": "stub-model",
            "MENDEL_SUMMARY_LLM_API_KEY": "secret-key",
            "MENDEL_SUMMARY_LLM_TIMEOUT": "5",
        }
    )
    assert isinstance(summarizer, OpenAICompatibleSummarizer) and summarizer.name == "llm:stub-model"
    assert "secret-key" not in repr(summarizer)
    text = "Ustanovení § 196 se použije ve sporech o vyklizení bytu."
    summary = summarizer.summarize([text], context="Zákon o soudních poplatcích")
    assert len(summary) <= SUMMARY_CHARS and summary.endswith(ELLIPSIS)
    assert summary.removesuffix(ELLIPSIS) in LLM_ANSWER
    (request,) = stub.requests
    assert request["path"] == "/v1/chat/completions" and request["authorization"] == "Bearer secret-key"
    body = request["body"]
    assert body["model"] == "stub-model" and body["temperature"] == 0
    assert text in body["messages"][-1]["content"] and "Zákon o soudních poplatcích" in body["messages"][-1]["content"]
    assert str(SUMMARY_CHARS) in body["messages"][0]["content"]


@pytest.mark.parametrize(
    "status, raw_body",
    [
        (500, None),
        (200, b"not json"),
        (200, b'{"choices": []}'),
        (200, b'{"choices": [{"message": {"content": "  "}}]}'),
    ],
)
def test_llm_failure_falls_back_to_the_extractive_summary(stub, status, raw_body):
    stub.status, stub.raw_body = status, raw_body
    summarizer = OpenAICompatibleSummarizer(base_url=stub.url, model="stub-model", timeout=5)
    text = (
        "Nejvyšší soud rozhodl o přikázání věci. Věc se přikazuje Okresnímu soudu v Chomutově. "
        "Důvodem je hospodárnost řízení."
    )
    assert summarizer.summarize([text]) == ExtractiveSummarizer().summarize([text])
    assert summarizer.failures == 1 and len(stub.requests) == 1


@pytest.mark.parametrize(
    "env, message",
    [
        ({"MENDEL_SUMMARY_LLM_URL": "http://127.0.0.1:9/v1"}, "model"),
        ({"MENDEL_SUMMARY_LLM_URL": "file:///etc/passwd", "MENDEL_SUMMARY_LLM_MODEL": "m"}, "http"),
    ],
)
def test_bad_llm_configuration_is_a_clear_error(env, message):
    with pytest.raises(ValueError, match=message):
        get_summarizer(env)


def test_chunking_stores_llm_summaries_and_uses_them_as_context(stub, fresh_db):
    stub.answer = "Nejvyšší soud přikázal věc jinému soudu z důvodu vhodnosti."
    decision = ns_decisions()[0]
    with psycopg.connect(fresh_db, autocommit=True) as conn:
        add_document(
            conn,
            decision["ecli"],
            [decision["full_text"][:2500]],
            title=decision["title"],
            citation=decision["case_number"],
        )
        stats = chunk_stage.chunk_pending(conn, summarizer=OpenAICompatibleSummarizer(base_url=stub.url, model="m"))
        assert stats["summarizer"] == "llm:m" and stats["documents"] == 1
        summaries = dict(conn.execute("SELECT layer, summary FROM chunks WHERE layer IN (1, 2)").fetchall())
        passages = load_layer(conn, 3)
    assert summaries[1] == stub.answer and summaries[2] == stub.answer
    assert stub.requests and all(r["authorization"] is None for r in stub.requests)  # no key configured, none sent
    assert passages and all(stub.answer in r.context_text and stub.answer not in r.text for r in passages)
