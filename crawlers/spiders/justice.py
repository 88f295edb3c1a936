"""The lower courts' decisions from the Ministry of Justice's open data (rozhodnuti.justice.cz), a publication day at a
time: ``/api/opendata/{YYYY}/{MM}/{DD}?page=N`` (N from 0) answers ``{items, pageNumber, pageSize, totalPages}``.

Every day of the window that is not closed is read in full (page 0 says how many pages follow); each record of a
day is a document of its own — the record's JSON object as the API gave it, ``doc_id`` its ECLI (the court
system's own), else ``justice:{court}:{file number}`` — and the day's pages are one complete listing. A day read in
full is reported (:class:`crawlers.items.DayRead`), and closed once it is older than the publication lag
(``lag_days``; mendel.crawl.open_data_days): a closed day is never asked for again, unless ``reread``. A page that
fails leaves its day open, so the next run reads it again. Whether a record is a decision the index can use (its
text, dates and court) is the content check's to say (mendel.crawl.content_checks): a bad record is quarantined
with its reason, the rest of the page is stored.
"""

from __future__ import annotations

import json
from datetime import date, timedelta

from crawlers import settings as project
from crawlers.items import DayRead, FetchedDocument, ListingAnswered
from crawlers.spiders.base import MendelSpider, spider_flag
from mendel.crawl.open_data_days import closable

API = "/api/opendata"
LISTING = "justice:{day}"


def day_url(base_url: str, day: date, page: int = 0) -> str:
    return f"{base_url}{API}/{day.year:04d}/{day.month:02d}/{day.day:02d}" + (f"?page={page}" if page else "")


def days_between(first: date, last: date) -> list[date]:
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def record_id(record: dict) -> str | None:
    """The record's document id: its ECLI, else its court and file number; None when it has neither."""
    ecli = str(record.get("ecli") or "").strip()
    if ecli:
        return ecli
    court, number = str(record.get("soud") or "").strip(), str(record.get("jednaciCislo") or "").strip()
    return f"justice:{court}:{number}" if court and number else None


class JusticeSpider(MendelSpider):
    name = "justice"
    source = "justice"

    custom_settings = {"EXTENSIONS": project.DAYS_EXTENSIONS, "ITEM_PIPELINES": project.DAYS_ITEM_PIPELINES}

    def __init__(
        self,
        base_url: str,
        date_from: str,
        date_to: str = "",
        lag_days: int | str = 14,
        reread: bool | str = False,
        *args,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.base_url = base_url.rstrip("/")
        self.first = date.fromisoformat(date_from)
        self.today = date.today()
        self.last = date.fromisoformat(date_to) if date_to else self.today
        self.lag_days = int(lag_days)
        self.reread = spider_flag(reread)
        self.pages_left: dict[str, int] = {}  # day → pages not yet answered
        self.records: dict[str, int] = {}

    async def start(self):
        for day in days_between(self.first, self.last):
            key = day.isoformat()
            if key in self.known.closed_days and not self.reread:
                self.crawler.stats.inc_value("mendel/days_skipped_closed")
                continue
            self.pages_left[key], self.records[key] = 1, 0
            yield self.day_request(day, 0)

    def day_request(self, day: date, page: int):
        return self.listing_request(
            day_url(self.base_url, day, page),
            self.parse_day,
            listing=LISTING.format(day=day.isoformat()),
            cb_kwargs={"day": day, "page": page},
            dont_filter=True,
        )

    def parse_day(self, response, day: date, page: int):
        key = day.isoformat()
        try:
            answer = json.loads(response.text)
        except ValueError as exc:
            yield self.reject_listing(response, f"truncated or malformed JSON: {exc}")
            return
        if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
            yield self.reject_listing(response, "not an open-data page (no items list)")
            return
        listing = LISTING.format(day=key)
        self.listing_read(listing)
        yield ListingAnswered(source=self.source, url=response.url)  # a page that failed last time has healed
        if page == 0:
            pages = int(answer.get("totalPages") or 0)
            self.pages_left[key] += max(pages - 1, 0)
            for number in range(1, pages):
                yield self.day_request(day, number)
        for record in answer["items"]:
            yield from self.record_item(response, record, listing)
        self.pages_left[key] -= 1
        if self.pages_left[key] == 0 and listing not in self.incomplete_listings:
            yield DayRead(
                source=self.source,
                day=key,
                pages=max(int(answer.get("totalPages") or 0), 1),
                records=self.records[key],
                close=closable(day, self.today, self.lag_days),
            )

    def record_item(self, response, record, listing: str):
        self.discovered += 1
        day = listing.split(":", 1)[1]
        self.records[day] += 1
        doc_id = record_id(record) if isinstance(record, dict) else None
        url = f"{response.url.split('?')[0]}#{doc_id or self.records[day]}"
        if doc_id is None:
            yield self.outcome(url, "quarantined", status=response.status, reason="record without ECLI or file number")
            return
        self.listed(listing, doc_id)
        court = str(record.get("soud") or "").strip()
        number = str(record.get("jednaciCislo") or "").strip()
        yield FetchedDocument(
            source=self.source,
            doc_id=doc_id,
            url=url,
            body=json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
            content_type="application/json",
            title=", č. j. ".join(p for p in (court, number) if p) or None,
            doc_type="decision",
            citation=number or None,
            published=str(record.get("datumVydani") or "")[:10] or None,
            http_status=response.status,
            listing=listing,
            extra={"court": court, "ecli": record.get("ecli") or None, "published_on": day},
        )
