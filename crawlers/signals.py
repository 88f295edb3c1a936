"""The crawl's own signal: an outcome reached outside a callback (a redirect the duplicate filter dropped), for the
crawl log (crawlers.pipelines.crawl_log)."""

outcome_reached = object()
