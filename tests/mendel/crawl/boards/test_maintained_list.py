"""The maintained list of boards no catalogue names (HTML boards, site APIs) and its validation."""

from __future__ import annotations

import pytest

from mendel.core.config import HTML_BOARDS_FILE
from mendel.crawl.boards.board import RegistryError
from mendel.crawl.boards.maintained_list import html_boards_from, load_html_boards

LISTED = ["html:kadan-js", "html:kadan-html", "api:blesno"]


def test_maintained_html_list_and_its_validation():
    boards = {b.key: b for b in load_html_boards(str(HTML_BOARDS_FILE))}
    assert list(boards) == LISTED
    assert boards["html:kadan-js"].javascript and not boards["html:kadan-html"].javascript
    assert all(b.on_reserved_name for b in boards.values())
    assert {b.publisher_ico for b in boards.values() if b.kind == "html"} == {"00261912"}
    assert (boards["api:blesno"].kind, boards["api:blesno"].rules) == ("article_api", {})
    assert boards["html:kadan-html"].rules["posted"].startswith("xpath:")
    with pytest.raises(RegistryError, match="board #0 \\(x\\): rules missing \\['row'\\]"):
        html_boards_from({"boards": [{"id": "x", "url": "http://x.cz/", "rules": {"board": "a", "title": "b"}}]})
    with pytest.raises(RegistryError, match="unknown rules \\['rows'\\]"):
        html_boards_from(
            {
                "boards": [
                    {"id": "x", "url": "http://x.cz/", "rules": {"board": "a", "row": "r", "title": "b", "rows": "c"}}
                ]
            }
        )
    with pytest.raises(RegistryError, match="unknown kind 'rss'"):
        html_boards_from({"boards": [{"id": "x", "url": "http://x.cz/", "kind": "rss"}]})
    with pytest.raises(RegistryError, match="an article_api site has no extraction rules"):
        html_boards_from(
            {"boards": [{"id": "x", "url": "http://x.cz/", "kind": "article_api", "rules": {"board": "a"}}]}
        )
