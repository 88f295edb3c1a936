-- The PDFs of a site API (doc_type municipal_document, doc_id site:article/file) were titled with a title built from
-- their file name ("Kanalizacni rad (Obec Blešno)"); the site names a file by its file name alone, which is what the
-- crawl now stores as the title (crawlers/spiders/boards/site_api.py). Rows stored before take it too: the file name
-- from the doc_id and the board's name the title ended with. Running it again changes nothing.
UPDATE documents
SET title = regexp_replace(doc_id, '^[^:]+:[^/]+/', '') || coalesce(substring(title from ' \([^()]*\)$'), '')
WHERE doc_type = 'municipal_document' AND doc_id ~ '^[^:/]+:[^/]+/[^/]+$';
