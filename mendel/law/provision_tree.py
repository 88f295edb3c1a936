"""An act version's text as a tree of provisions, from e-Sbírka's fragments: část / hlava / díl / § / odstavec /
písmeno / bod, each with the stable id a citation uses (``§ 4 odst. 1 písm. a)``; above §: ``část 1 hlava 2``) and
a hash of its subtree's wording, so that versions can be compared provision by provision."""

from __future__ import annotations

import hashlib
import re

_PROVISION_PARTS = {"par": "§ {}", "cl": "čl. {}", "odst": "odst. {}", "pism": "písm. {})", "bod": "bod {}"}
_STRUCTURE_PARTS = {
    "cast": "část {}",
    "hlava": "hlava {}",
    "dil": "díl {}",
    "oddil": "oddíl {}",
    "pododdil": "pododdíl {}",
    "priloha": "příloha {}",
}
# Fragment kinds that open a unit of the tree; headings belong to their unit; the rest is text of the unit.
UNIT_KINDS = frozenset(
    {
        "Cast",
        "Hlava",
        "Dil",
        "Oddil",
        "Pododdil",
        "Paragraf",
        "Clanek",
        "Priloha",
        "Odstavec_Dc",
        "Pismeno_Lb",
        "Bod_Dd",
    }
)
_HEADING_KINDS = frozenset({"Nadpis_nad", "Nadpis_pod"})
# Only a designation ("§ 4", "ČÁST PRVNÍ"): the unit's id says it; odstavce, písmena and body keep theirs.
_DESIGNATION_ONLY = frozenset({"Cast", "Hlava", "Dil", "Oddil", "Pododdil", "Paragraf", "Clanek"})
_OUTSIDE_PROVISIONS = frozenset({"Virtual_Prefix", "Virtual_Postfix", "PPC"})  # title, signature, footnotes


def provision_from_anchor(anchor: str | None) -> str:
    """A stale-URL anchor as a provision, in LAW_REF norm form: ``par_12-odst_3-pism_a`` → ``§ 12 odst. 3 písm.
    a)``; ``cast_1-hlava_2`` (structure above a section) → ``''``."""
    parts = []
    for piece in (anchor or "").split("-"):
        key, _, value = piece.partition("_")
        if key in ("par", "cl"):
            parts = [_PROVISION_PARTS[key].format(value.split(":")[0])]
        elif key in _PROVISION_PARTS and parts and value:
            parts.append(_PROVISION_PARTS[key].format(value))
    return " ".join(parts)


def section_path(path: str | None) -> str:
    """A provision's place in the act, from its stored path: ``cast_4/hlava_2/dil_2/oddil_3/pododdil_2/par_2288``
    -> ``část 4 › hlava 2 › díl 2 › oddíl 3 › pododdíl 2 › § 2288``."""
    parts = []
    for piece in (path or "").split("/"):
        key, _, value = piece.partition("_")
        form = _STRUCTURE_PARTS.get(key) or _PROVISION_PARTS.get(key)
        if form and value:
            parts.append(form.format(value))
    return " › ".join(parts)


def anchor_path(stale_url: str | None) -> tuple[tuple[str, str], ...]:
    """``/sb/2025/573/2026-06-01#par_4-pism_a`` -> (('par', '4'), ('pism', 'a'))."""
    anchor = (stale_url or "").partition("#")[2]
    pieces = []
    for piece in anchor.split("-") if anchor else ():
        key, _, value = piece.partition("_")
        if key and value:
            pieces.append((key, value.split(":")[0]))
    return tuple(pieces)


def provision_label(path: tuple[tuple[str, str], ...]) -> tuple[str, str]:
    """(structure, provision) labels of a path: (('cast', '2'), ('cl', '1')) -> ('část 2', 'čl. 1');
    (('par', '4'), ('pism', 'a')) -> ('', '§ 4 písm. a)')."""
    structure, provision = [], []
    for key, value in path:
        if key in ("par", "cl"):
            provision = [_PROVISION_PARTS[key].format(value)]
        elif key in _PROVISION_PARTS and provision:
            provision.append(_PROVISION_PARTS[key].format(value))
        elif key in _STRUCTURE_PARTS and not provision:
            structure.append(_STRUCTURE_PARTS[key].format(value))
    return " ".join(structure), " ".join(provision)


def normalise_wording(text: str) -> str:
    """Whitespace collapsed, none before a closing mark: the same wording from a PDF line and a DOCX paragraph."""
    return re.sub(r"\s+([,.;:)])", r"\1", re.sub(r"\s+", " ", text)).strip()


def provision_tree(fragments: list[dict]) -> list[dict]:
    """The provisions of one version, in document order: each unit fragment (část ... bod) opens a provision;
    headings and text fragments belong to the unit their anchor names. ``id`` is the label a citation uses
    (``§ 4 odst. 1 písm. a)``; above §: ``část 1 hlava 2``), made unique within the version by its structure
    (``část 2 čl. 1``); ``last_seq`` closes its subtree; ``wording_sha`` hashes the subtree's wording."""
    nodes: dict[tuple, dict] = {}
    order: list[dict] = []
    used: set[str] = set()
    for fragment in fragments:
        kind = fragment.get("kind") or ""
        path = anchor_path(fragment.get("staleUrl"))
        if kind in _OUTSIDE_PROVISIONS or not path:
            continue
        node = nodes.get(path)
        if node is None:
            structure, provision = provision_label(path)
            node_id = provision or structure
            if node_id in used and provision and structure:
                node_id = f"{structure} {provision}"
            while node_id in used:
                node_id = f"{node_id} [{sum(1 for u in used if u.startswith(node_id)) + 1}]"
            used.add(node_id)
            parent = next((nodes[path[:i]] for i in range(len(path) - 1, 0, -1) if path[:i] in nodes), None)
            node = {
                "id": node_id,
                "path": "/".join(f"{k}_{v}" for k, v in path),
                "kind": kind if kind in UNIT_KINDS else "Text",
                "parent": parent["id"] if parent else None,
                "seq": len(order),
                "last_seq": len(order),
                "depth": parent["depth"] + 1 if parent else 0,
                "heading": [],
                "text": [],
                "fragments": [],
                "designated": False,
                "_path": path,
            }
            nodes[path] = node
            order.append(node)
        node["fragments"].append(fragment.get("id"))
        if kind in UNIT_KINDS and node["kind"] == "Text":  # a heading above a § came first
            node["kind"] = kind
        text = fragment.get("text") or ""
        if kind in _HEADING_KINDS:
            node["heading"].append(text)
        elif kind in _DESIGNATION_ONLY and not node["designated"] and _is_designation(text):
            node["designated"] = True
        else:
            node["text"].append(text)
    for node in order:  # a subtree ends where the next node outside it starts
        path = node["_path"]
        last = node["seq"]
        for later in order[node["seq"] + 1 :]:
            if later["_path"][: len(path)] != path:
                break
            last = later["seq"]
        node["last_seq"] = last
    provisions = []
    for node in order:
        heading = normalise_wording(" ".join(node["heading"])) or None
        text = normalise_wording(" ".join(node["text"]))
        provisions.append(
            {
                "id": node["id"],
                "path": node["path"],
                "kind": node["kind"],
                "parent": node["parent"],
                "seq": node["seq"],
                "last_seq": node["last_seq"],
                "depth": node["depth"],
                "heading": heading,
                "text": text,
                "fragments": node["fragments"],
            }
        )
    for node in provisions:
        subtree = provisions[node["seq"] : node["last_seq"] + 1]
        node["wording_sha"] = hashlib.sha256(
            "\n".join(f"{p['id']}\t{provision_wording(p)}" for p in subtree).encode("utf-8")
        ).hexdigest()
    return provisions


def provision_wording(item: dict) -> str:
    """A provision's heading and text as one normalised wording."""
    return normalise_wording(" ".join(p for p in (item.get("heading"), item.get("text")) if p))


def _is_designation(text: str) -> bool:
    return bool(re.fullmatch(r"(ČÁST|HLAVA|Díl|Oddíl|Pododdíl|§|Čl\.)\s*\S+(\s+\S+)?", text.strip()))
