-- Municipal notice boards: the attachments each notice links to (an OFN notice's dokument[], an HTML board's
-- attachment links). Both ends are documents.doc_id values; an attachment that was never stored (404, quarantined,
-- not fetched) keeps its link, and its fate is in crawl_log under the same URL. A notice's rows are replaced
-- whenever its board is read, so they always show the notice's current attachments in order.
CREATE TABLE IF NOT EXISTS notice_attachments (
    notice_doc_id     text NOT NULL,
    position          integer NOT NULL CHECK (position >= 0),  -- order in the notice's list, from 0
    attachment_doc_id text NOT NULL,
    name              text,                                     -- the attachment's title on the board
    board             text NOT NULL,                            -- the listing read: feed URL or board page URL
    seen_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (notice_doc_id, position)
);
CREATE INDEX IF NOT EXISTS notice_attachments_attachment_idx ON notice_attachments (attachment_doc_id);
