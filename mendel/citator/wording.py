"""The wording of a provision on a date: which version (znění) of the act was in force, what the provision said
in it, which act amended it into that wording, and what changed against the version before; read from
``act_versions`` and ``provisions`` (filled by the e-Sbírka crawl, :mod:`mendel.law.act_versions`)."""

from __future__ import annotations

import difflib
import re
from datetime import date

import psycopg

from mendel.law.acts_table import find_named_acts
from mendel.law.commencement import commencement, is_promulgated_text
from mendel.law.identifiers import ActId, parse_act_path, parse_citation
from mendel.law.provision_pages import PageLocator
from mendel.law.provision_tree import provision_wording, section_path

_PROVISION = re.compile(
    r"(?P<unit>§|čl\.|Čl\.|článek|článku)\s*(?P<number>\d+[a-z]*|[IVXLC]+)"
    r"(?P<rest>(?:\s+(?:odst\.|odstavec|odstavce)\s*\d+[a-z]?|\s+písm\.\s*[a-z]{1,2}\)?|\s+bod[u]?\s*\d+[a-z]?)*)"
)
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
_ELI_UNITS = {"par": "§ {}", "cl": "čl. {}", "odst": "odst. {}", "pism": "písm. {})", "bod": "bod {}"}


class Reference:
    """An act and, optionally, a provision of it (``provision`` in the ids ``provisions`` uses)."""

    def __init__(self, act: ActId, provision: str = ""):
        self.act = act
        self.provision = provision

    @property
    def text(self) -> str:
        return f"{self.provision} {self.act.citation}".strip()

    def __repr__(self) -> str:
        return f"Reference({self.text!r})"


def roman_to_int(value: str) -> int | None:
    if not value or not set(value) <= set(_ROMAN):
        return None
    total = 0
    for i, ch in enumerate(value):
        n = _ROMAN[ch]
        total += -n if i + 1 < len(value) and _ROMAN[value[i + 1]] > n else n
    return total


def provision_key(provision: str | None) -> str:
    """A provision as ``provisions.provision_id`` names it: ``Čl. IV odst. 2`` -> ``čl. 4 odst. 2``, ``§ 2 odst.1
    písm.a)`` -> ``§ 2 odst. 1 písm. a)``; '' for none."""
    if not provision:
        return ""
    m = _PROVISION.search(provision)
    if not m:
        return ""
    unit = "§" if m["unit"] == "§" else "čl."
    number = m["number"]
    if unit == "čl." and roman_to_int(number):
        number = str(roman_to_int(number))
    parts = [f"{unit} {number}"]
    for piece in re.finditer(r"(odst\.|odstavec|odstavce|písm\.|bod[u]?)\s*(\d+[a-z]?|[a-z]{1,2})", m["rest"]):
        kind, value = piece.groups()
        if kind.startswith("odst"):
            parts.append(f"odst. {value}")
        elif kind.startswith("písm"):
            parts.append(f"písm. {value})")
        else:
            parts.append(f"bod {value}")
    return " ".join(parts)


def parse_reference(text: str) -> Reference | None:
    """The act and provision a reference names: ``§ 4 vyhlášky č. 573/2025 Sb.``, ``573/2025 Sb. § 4``,
    ``§ 158 odst. 3 zákoníku práce`` (acts by name, through the NER), an ELI with a provision path
    (``/eli/cz/sb/2025/573/2026-06-01/dokument/norma/par_4/pism_a``); None when it names no act."""
    text = (text or "").strip()
    found = parse_act_path(text)
    if found is not None:
        act, rest = found
        units = re.findall(r"(par|cl|odst|pism|bod)_([0-9a-z]+)", rest)
        label = " ".join(_ELI_UNITS[k].format(v) for k, v in units) if units and units[0][0] in ("par", "cl") else ""
        return Reference(ActId(act.collection, act.year, act.number), label)
    from mendel.ner import recognise_text  # spaCy only when a reference is read
    from mendel.ner.rules import split_law_ref_norm

    for entity in recognise_text(text):
        if entity.label != "LAW_REF":
            continue
        act_text, provision = split_law_ref_norm(entity.norm)
        act = parse_citation(act_text)
        if act is not None:  # "573/2025 Sb. § 4": the act and the provision may be read apart
            return Reference(act, provision_key(provision) or provision_key(text))
    citation = re.search(r"\d{1,4}\s*/\s*\d{2,4}\s*Sb\.(?:\s*m\.\s*s\.)?", text)
    act = parse_citation(citation.group()) if citation else None
    if act is None:  # an act named as people type it ("§ 2910 obcanskeho zakoniku"): the acts table reads folded
        named = find_named_acts(text)
        act = parse_citation(named[0].citation) if named else None
    return Reference(act, provision_key(text)) if act else None


# ---------------------------------------------------------------- the database


def _versions(conn: psycopg.Connection, doc_id: str) -> list[dict]:
    rows = conn.execute(
        "SELECT version, version_eli, stale_url, citation, title, announced, effective_from, effective_to, amended_by,"
        " version_number FROM act_versions WHERE doc_id = %s AND version <> '0000-00-00'"
        " ORDER BY effective_from NULLS FIRST, version",
        (doc_id,),
    ).fetchall()
    keys = (
        "version",
        "eli",
        "stale_url",
        "citation",
        "title",
        "announced",
        "effective_from",
        "effective_to",
        "amended_by",
        "number",
    )
    return [dict(zip(keys, row)) for row in rows]


def _checked_on(conn: psycopg.Connection, doc_id: str) -> date | None:
    """The day the act's versions were last checked at the source (fetched or found unchanged)."""
    row = conn.execute(
        "SELECT max(coalesce(checked_at, fetched_at)) FROM act_versions WHERE doc_id = %s", (doc_id,)
    ).fetchone()
    return row[0].date() if row and row[0] is not None else None


def _subtree(conn: psycopg.Connection, doc_id: str, version: str, provision_id: str) -> list[dict]:
    """The provision and everything under it, in order; [] when the version has no such provision."""
    rows = conn.execute(
        "SELECT c.provision_id, c.heading, c.text, c.depth, c.kind, c.path FROM provisions p"
        " JOIN provisions c ON c.doc_id = p.doc_id AND c.version = p.version AND c.seq BETWEEN p.seq AND p.last_seq"
        " WHERE p.doc_id = %s AND p.version = %s AND p.provision_id = %s ORDER BY c.seq",
        (doc_id, version, provision_id),
    ).fetchall()
    return [dict(zip(("id", "heading", "text", "depth", "kind", "path"), row)) for row in rows]


def _whole_act(conn: psycopg.Connection, doc_id: str, version: str) -> list[dict]:
    rows = conn.execute(
        "SELECT provision_id, heading, text, depth, kind, path FROM provisions WHERE doc_id = %s AND version = %s"
        " ORDER BY seq",
        (doc_id, version),
    ).fetchall()
    return [dict(zip(("id", "heading", "text", "depth", "kind", "path"), row)) for row in rows]


def _lines(subtree: list[dict]) -> list[str]:
    """The subtree as lines of text, one per provision, indented below the first."""
    if not subtree:
        return []
    top = subtree[0]["depth"]
    return [f"{'  ' * (item['depth'] - top)}{item['id']}: {provision_wording(item)}".rstrip(": ") for item in subtree]


def _commencement(conn: psycopg.Connection, doc_id: str, versions: list[dict]) -> date | None:
    """:func:`mendel.law.commencement.commencement` of the act's stored versions and document."""
    row = conn.execute("SELECT doc_type FROM documents WHERE doc_id = %s", (doc_id,)).fetchone()
    stored = [(v["version"], v["effective_from"], v["number"]) for v in versions]
    return commencement(stored, promulgated_stored=bool(row) and is_promulgated_text(row[0]))


def _version_view(version: dict, started: date | None = None) -> dict:
    """A version as the answer shows it; ``original``: the act's wording as it took effect on ``started``."""
    return {
        "version": version["version"],
        "eli": version["eli"],
        "stale_url": version["stale_url"],
        "effective_from": _iso(version["effective_from"]),
        "effective_to": _iso(version["effective_to"]),
        "amended_by": version["amended_by"] or [],
        "number": version["number"],
        "original": started is not None and version["effective_from"] == started,
    }


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def changed_values(before: str, after: str) -> dict:
    """The words that differ between two wordings (``34,10`` -> ``44,50``), each run of them joined."""
    old, new = before.split(), after.split()
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            removed.append(" ".join(old[i1:i2]).strip(",;."))
        if op in ("replace", "insert"):
            added.append(" ".join(new[j1:j2]).strip(",;."))
    return {"before": removed, "after": added}


def diff_subtrees(previous: list[dict], current: list[dict], previous_eli: str, current_eli: str) -> dict:
    """What changed in a provision between two versions, sub-provision by sub-provision."""
    before = {item["id"]: provision_wording(item) for item in previous}
    after = {item["id"]: provision_wording(item) for item in current}
    changed = [
        {
            "provision": pid,
            "before": before[pid],
            "after": after[pid],
            "values": changed_values(before[pid], after[pid]),
        }
        for pid in after
        if pid in before and before[pid] != after[pid]
    ]
    unified = "\n".join(
        difflib.unified_diff(_lines(previous), _lines(current), fromfile=previous_eli, tofile=current_eli, lineterm="")
    )
    return {
        "changed": changed,
        "added": [pid for pid in after if pid not in before],
        "removed": [pid for pid in before if pid not in after],
        "unified": unified,
    }


def _promulgated_page(conn: psycopg.Connection, doc_id: str, subtree: list[dict]) -> dict | None:
    """The page of the act's stored document (the promulgated PDF) the provision's wording starts on."""
    return PageLocator(conn, doc_id).locate(subtree)


def provision_at(conn: psycopg.Connection, ref: str | Reference, at: date) -> dict:
    """The wording of ``ref`` (a provision, or an act: its whole text) in force on ``at``, as a plain dict:

    - ``status``: ``in_force`` (the wording below), ``not_yet_in_force`` (the act exists but takes effect later),
      ``not_yet_announced`` (the act did not exist on that date), ``before_stored_versions`` (the act existed, but
      the collection holds only later wordings: :func:`mendel.law.commencement.commencement` unknown), ``no_longer_in_force`` (its last
      version ended),
      ``no_such_provision`` (the version in force has no such provision: never the nearest text instead),
      ``validity_unknown`` (the source gives the act's only version no dates), ``unknown_act`` / ``not_a_reference``;
    - ``message``: one sentence saying so;
    - ``version``: the version in force (version ELI, validity, amending acts, number), ``provision`` (its id,
      heading, wording and sub-provisions), ``diff`` against the version before (each changed sub-provision with
      the values that changed, added and removed ones, a unified diff) and ``promulgated`` (the page of the
      promulgated text the provision is on, when the act's PDF is stored).
    """
    reference = ref if isinstance(ref, Reference) else parse_reference(ref)
    answer: dict = {"ref": ref if isinstance(ref, str) else ref.text, "at": at.isoformat()}
    if reference is None:
        return {**answer, "status": "not_a_reference", "message": f"{answer['ref']!r} names no act of the Sbírka."}
    act = reference.act
    answer["act"] = {"citation": act.citation, "eli": act.eli}
    answer["provision_ref"] = reference.provision or None
    versions = _versions(conn, act.eli)
    if not versions:
        return {
            **answer,
            "status": "unknown_act",
            "message": f"No version of {act.citation} is stored (is it crawled from e-Sbírka?).",
        }
    answer["act"]["title"] = versions[-1]["title"]
    started = _commencement(conn, act.eli, versions)
    answer["commencement"] = _iso(started)
    answer["versions"] = [_version_view(v, started) for v in versions]
    what = reference.provision or act.citation
    dated = [v for v in versions if v["effective_from"] is not None]
    chosen = next(
        (v for v in dated if v["effective_from"] <= at and (v["effective_to"] is None or at <= v["effective_to"])), None
    )
    if chosen is None and not dated:
        chosen = versions[-1]
        answer.update(
            status="validity_unknown",
            message=(
                f"e-Sbírka gives {act.citation} no effective dates: the only known version is shown, whether it was "
                f"in force on {at.isoformat()} is not known."
            ),
        )
    elif chosen is None and at < dated[0]["effective_from"]:
        announced = min((v["announced"] for v in versions if v["announced"]), default=None)
        answer["announced"] = _iso(announced)
        first = dated[0]["effective_from"].isoformat()
        if announced and at < announced:
            return {
                **answer,
                "status": "not_yet_announced",
                "message": (
                    f"{act.citation} did not exist on {at.isoformat()}: it was announced on {announced.isoformat()}"
                    + (
                        f" and is in force from {first}."
                        if started
                        else f"; the earliest stored wording is of {first}."
                    )
                ),
            }
        if started is None:  # the act may well have been in force: its wordings of then are not stored
            return {
                **answer,
                "status": "before_stored_versions",
                "message": (
                    f"No stored wording of {act.citation} covers {at.isoformat()}: the earliest stored one is in force "
                    f"from {first}, the earlier ones are not in the collection."
                ),
            }
        return {
            **answer,
            "status": "not_yet_in_force",
            "message": (f"{act.citation} was not yet in force on {at.isoformat()}: it takes effect on {first}."),
        }
    elif chosen is None:
        ended = dated[-1]["effective_to"]
        if ended is not None and at > ended:
            return {
                **answer,
                "status": "no_longer_in_force",
                "message": f"No version of {act.citation} was in force on {at.isoformat()}: the last ended on "
                f"{ended.isoformat()}.",
            }
        return {
            **answer,
            "status": "validity_unknown",
            "message": f"The stored versions of {act.citation} leave {at.isoformat()} uncovered.",
        }
    else:
        answer.update(
            status="in_force",
            message=(
                f"{what} as in force on {at.isoformat()}: version {chosen['eli']} "
                f"(from {chosen['effective_from'].isoformat()}"
                + (f" to {chosen['effective_to'].isoformat()}" if chosen["effective_to"] else "")
                + ")."
            ),
        )
        checked = _checked_on(conn, act.eli) if chosen["effective_to"] is None else None
        if checked is not None and at > checked:  # a later day: acts announced after the check may change it
            answer["known_as_of"] = checked.isoformat()
            answer["message"] += (
                f" It is the wording e-Sbírka gave when last checked, on {checked.isoformat()}; acts announced since"
                " may change it."
            )
    answer["version"] = _version_view(chosen, started)
    if reference.provision:
        subtree = _subtree(conn, act.eli, chosen["version"], reference.provision)
    else:
        subtree = _whole_act(conn, act.eli, chosen["version"])
    if not subtree and not reference.provision:
        return {
            **answer,
            "status": "no_text",
            "message": (
                f"Only the list of versions of {act.citation} is stored (version {chosen['eli']} on {at.isoformat()}), "
                "not its text."
            ),
        }
    if not subtree:
        elsewhere = [
            v["eli"] for v in versions if v is not chosen and _subtree(conn, act.eli, v["version"], reference.provision)
        ]
        return {
            **answer,
            "status": "no_such_provision",
            "message": (
                f"{act.citation} has no {reference.provision} in the version in force on {at.isoformat()} "
                f"({chosen['eli']})"
                + (f"; it exists in {', '.join(elsewhere)}." if elsewhere else "; no stored version has it.")
            ),
            "exists_in": elsewhere,
        }
    answer["provision"] = {
        "id": subtree[0]["id"] if reference.provision else None,
        "heading": subtree[0]["heading"] if reference.provision else None,
        # where it stands in the act: část, hlava, díl, oddíl, pododdíl, § (and below)
        "section_path": section_path(subtree[0]["path"]) if reference.provision else None,
        "text": "\n".join(_lines(subtree)),
        "items": [{"id": item["id"], "text": provision_wording(item)} for item in subtree],
    }
    earlier = [v for v in dated if chosen["effective_from"] and v["effective_from"] < chosen["effective_from"]]
    if earlier:
        previous = earlier[-1]
        before = (
            _subtree(conn, act.eli, previous["version"], reference.provision)
            if reference.provision
            else _whole_act(conn, act.eli, previous["version"])
        )
        answer["previous_version"] = _version_view(previous, started)
        answer["diff"] = diff_subtrees(before, subtree, previous["eli"], chosen["eli"])
    else:
        answer["previous_version"] = None
        answer["diff"] = None  # the original wording, or the earliest the collection holds (``original`` says)
    answer["promulgated"] = _promulgated_page(conn, act.eli, subtree)
    return answer


def describe(answer: dict) -> str:
    """The answer as text for a terminal."""
    lines = [answer["message"]]
    version = answer.get("version")
    if version and answer.get("provision"):
        amended = ", ".join(a["citation"] for a in version["amended_by"]) or (
            "none (the original wording)" if version.get("original") else "not named by the source"
        )
        lines.append(
            f"version {version['eli']}  valid {version['effective_from'] or '?'} – "
            f"{version['effective_to'] or 'today'}  amended by: {amended}"
        )
        if answer["provision"].get("section_path"):
            lines.append(f"in {answer['provision']['section_path']}")
        lines += ["", answer["provision"]["text"]]
        diff = answer.get("diff")
        if diff is None:
            lines += ["", "diff: none, this is the first version"]
        else:
            previous = answer["previous_version"]
            lines += [
                "",
                f"changes against {previous['eli']} ({previous['effective_from']} – "
                f"{previous['effective_to'] or '?'}):",
            ]
            for change in diff["changed"]:
                values = change["values"]
                lines.append(
                    f"  {change['provision']}: {', '.join(values['before']) or '—'} -> "
                    f"{', '.join(values['after']) or '—'}"
                )
            lines += [f"  added {pid}" for pid in diff["added"]] + [f"  removed {pid}" for pid in diff["removed"]]
            if not (diff["changed"] or diff["added"] or diff["removed"]):
                lines.append("  none in this provision")
        if answer.get("promulgated"):
            promulgated = answer["promulgated"]
            lines.append(f"\npromulgated text: {promulgated['doc_id']}, page {promulgated['page']}")
    return "\n".join(lines)
