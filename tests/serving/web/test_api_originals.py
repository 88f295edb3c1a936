"""The API's stored originals and rendered pages, its facets and filter checks, one error format (RFC 9457
problem details) and offline docs, over the tiny real bundle of tests/serving/web/test_api.py (whose originals are the real
Sbírka PDFs and the decisions' texts, in a raw store beside the bundles)."""

from __future__ import annotations

import copy
import hashlib
import io
import re

import pypdfium2 as pdfium
import pytest
from PIL import Image

from mendel.core.config import SAMPLE_CORPUS
from serving.web.api import create_app
from tests.support.bundle import EMBEDDER, HOUSING_QUERY, base_docs, build_bundle, load_corpus
from tests.support.web import TestClient, assert_problem

LAW = "/eli/cz/sb/2025/175"
LAW_PDF = SAMPLE_CORPUS / "esbirka" / "pdf" / "175-2025.pdf"
DECISION = "ECLI:CZ:NS:2026:20.ND.234.2026.1"


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    """One app over one bundle for the module: these tests only read."""
    root = tmp_path_factory.mktemp("originals")
    build_bundle(root / "bundles", base_docs(copy.deepcopy(load_corpus())))
    return TestClient(create_app(root / "bundles", embedder=EMBEDDER, reload_interval=0))


def pdf_pages(path) -> int:
    document = pdfium.PdfDocument(str(path))
    try:
        return len(document)
    finally:
        document.close()


# --- originals and pages -------------------------------------------------------------------------------------


def test_original_is_the_stored_file(client, corpus):
    response = client.get(f"/documents{LAW}/original")
    assert response.status_code == 200 and response.headers["content-type"] == "application/pdf"
    assert hashlib.sha256(response.content).hexdigest() == hashlib.sha256(LAW_PDF.read_bytes()).hexdigest()
    assert (
        response.headers["content-disposition"].startswith("inline;")
        and "175-2025-Sb.pdf" in response.headers["content-disposition"]
    )
    decision = client.get(f"/documents/{DECISION}/original")
    record = next(d for d in corpus if d["doc_id"] == DECISION)
    assert decision.status_code == 200 and decision.headers["content-type"].startswith("text/plain")
    assert decision.content == record["original"][0]


def test_page_png_is_that_page_rendered(client):
    response = client.get(f"/documents{LAW}/pages/3.png")
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and image.size == (893, 1263)  # A4 at 1.5x
    # The page's own pixels: page 3 differs from page 4, and it is not blank.
    assert response.content != client.get(f"/documents{LAW}/pages/4.png").content
    assert min(image.convert("L").getdata()) < 64
    last = pdf_pages(LAW_PDF)
    assert client.get(f"/documents{LAW}/pages/{last}.png").status_code == 200


@pytest.mark.parametrize(
    "path, says",
    [
        (f"/documents{LAW}/pages/{10_000}.png", "is not in the document (it has 77 pages)"),
        (f"/documents/{DECISION}/pages/1.png", "not a PDF"),
        ("/documents/eli/cz/sb/1999/1/pages/1.png", "unknown document"),
        ("/documents/eli/cz/sb/1999/1/original", "unknown document"),
    ],
)
def test_page_and_original_404s_are_problems(client, path, says):
    assert says in assert_problem(client.get(path), 404)["detail"]


def test_page_zero_is_invalid(client):
    body = assert_problem(client.get(f"/documents{LAW}/pages/0.png"), 422)
    assert body["errors"][0]["loc"] == ["path", "page"]


def test_original_missing_from_the_raw_store(tmp_path, corpus):
    bundles_dir = tmp_path / "bundles"
    build_bundle(bundles_dir, base_docs(corpus))
    api = TestClient(create_app(bundles_dir, embedder=EMBEDDER, reload_interval=0, raw_dir=tmp_path / "elsewhere"))
    assert "not in this server's raw store" in assert_problem(api.get(f"/documents{LAW}/original"), 404)["detail"]
    assert assert_problem(api.get(f"/documents{LAW}/pages/1.png"), 404)


# --- facets and filter values ----------------------------------------------------------------------------------


def test_facets_list_the_bundle_values(client, corpus):
    body = client.get("/facets").json()
    docs = base_docs(corpus)
    assert {s["value"]: s["documents"] for s in body["sources"]} == {"esbirka": 3, "nsoud": 2}
    assert {s["value"]: (s["label"], s["family"]) for s in body["sources"]} == {
        "esbirka": ("Sbírka zákonů (e-Sbírka)", "Předpisy"),
        "nsoud": ("Nejvyšší soud", "Judikatura"),
    }
    assert {t["value"] for t in body["doc_types"]} == {"law", "decision"}
    assert {a["citation"] for a in body["acts"]} == {d["citation"] for d in docs if d["doc_type"] == "law"}  # acts only
    dates = sorted(d["published"] for d in docs)
    assert body["published"] == {"from": dates[0], "to": dates[-1]}
    assert body["places"] == {}  # no document carries kraj / okres / obec
    assert body["bundle"] == client.get("/ready").json()["version"]


@pytest.mark.parametrize(
    "params, field",
    [
        ({"source": "cnb"}, "source"),
        ({"source": ["esbirka", "no-such-source"]}, "source"),
        ({"doc_type": "no-such-type"}, "doc_type"),
        ({"act": "1/1900 Sb."}, "act"),
        ({"act": "x" * 200}, "act"),
        ({"obec": "Kadaň"}, "obec"),  # the bundle's documents carry no place
    ],
)
def test_unknown_filter_values_are_400(client, params, field):
    body = assert_problem(client.get("/search", params={"q": HOUSING_QUERY, **params}), 400)
    assert body["detail"].startswith(f"{field}:")
    assert len(body["detail"]) < 300  # a long value is quoted by its prefix only


def test_place_filters_when_documents_carry_places(tmp_path, corpus):
    docs = base_docs(corpus)
    for doc in docs:
        if doc["source"] == "nsoud":
            doc.update(kraj="Hlavní město Praha", obec="Praha")
    build_bundle(tmp_path / "bundles", docs)
    api = TestClient(create_app(tmp_path / "bundles", embedder=EMBEDDER, reload_interval=0))
    assert api.get("/facets").json()["places"] == {"kraj": ["Hlavní město Praha"], "obec": ["Praha"]}
    results = api.get("/search", params={"q": "dovolání soud", "k": 5, "obec": "Praha"}).json()["results"]
    assert results and {r["source"] for r in results} == {"nsoud"}
    assert_problem(api.get("/search", params={"q": HOUSING_QUERY, "obec": "Brno"}), 400)
    assert_problem(api.get("/search", params={"q": HOUSING_QUERY, "okres": "Praha"}), 400)  # no such field


def test_at_is_applied_and_echoed(client):
    plain = client.get("/search", params={"q": HOUSING_QUERY, "k": 5}).json()
    dated = client.get("/search", params={"q": HOUSING_QUERY, "k": 5, "at": "2025-07-01"}).json()
    assert dated["at"] == "2025-07-01" and dated["not_applied"] == [] and plain["not_applied"] == []
    # this bundle's acts have no versions: the date leaves every passage in (tests/serving/ranking/test_search_in_force.py)
    assert [r["chunk_id"] for r in dated["results"]] == [r["chunk_id"] for r in plain["results"]]


# --- one error format ------------------------------------------------------------------------------------------


def test_validation_problem_lists_errors_without_the_input(client):
    query = "bydlení " * 1250  # 10,000 characters
    response = client.get("/search", params={"q": query, "k": "ten"})
    body = assert_problem(response, 422)
    assert {tuple(e["loc"]) for e in body["errors"]} == {("query", "q"), ("query", "k")}
    assert all(set(e) == {"loc", "msg", "type"} for e in body["errors"])
    assert "bydlení" not in response.text and len(response.content) < 1000


@pytest.mark.parametrize(
    "path, status",
    [
        ("/search?q=%20%20", 422),
        ("/search", 422),
        ("/analyze?q=", 422),
        ("/no-such-endpoint", 404),
        ("/documents/" + "x" * 5000, 404),
    ],
)
def test_every_error_is_a_problem(client, path, status):
    response = client.get(path)
    assert_problem(response, status)
    assert len(response.content) < 1000  # nothing long is echoed


def test_method_not_allowed_is_a_problem(client):
    assert_problem(client.post("/search", params={"q": HOUSING_QUERY}), 405)


def test_not_ready_is_a_problem(tmp_path):
    api = TestClient(create_app(tmp_path / "bundles", embedder=EMBEDDER, reload_interval=0))
    for path in ("/ready", "/facets", f"/documents{LAW}/original", "/search?q=bydlení"):
        assert "no published bundle" in assert_problem(api.get(path), 503)["detail"], path


# --- docs offline ----------------------------------------------------------------------------------------------

ASSET_RE = re.compile(r"""(?:src|href)=["']([^"']+)["']""")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_load_only_local_assets(client, page):
    html = client.get(page)
    assert html.status_code == 200
    assert not re.search(r"https?://", html.text), "the docs page names an outside URL"
    assets = ASSET_RE.findall(html.text)
    assert any(a.endswith(".js") for a in assets)
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200 and len(response.content) > 1000, asset
    assert "openapi.json" in html.text and client.get("/openapi.json").status_code == 200


def test_swagger_validator_is_off(client):
    # Swagger UI would otherwise send the spec to an outside validator for its badge.
    assert '"validatorUrl": null' in client.get("/docs").text
