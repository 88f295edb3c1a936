"""The board crawl's attachments as its records tell them (:func:`mendel.crawl.boards.attachment_health.attachment_outcomes`),
wired for the profile: in the demo a published attachment URL is fetched from the mirror (:func:`crawlers.demo.fetch_url`),
so its crawl-log row is found under that URL. A plain function a check or a test calls without Dagster."""

from functools import partial

from mendel.crawl.boards.attachment_health import attachment_outcomes


def attachment_health(conn, settings, run_id: str) -> dict:
    """Attachments of one board crawl run: linked, stored, unchanged, failed and deferred (each by reason), not
    requested."""
    origin = settings.rebase_origin()
    if origin:
        from crawlers.demo import fetch_url

        return attachment_outcomes(conn, run_id, partial(fetch_url, origin=origin))
    return attachment_outcomes(conn, run_id)
