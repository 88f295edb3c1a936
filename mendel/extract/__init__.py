"""Document extraction: `mendel.extract.document.extract_document(data, content_type, url)` turns a PDF,
DOCX, HTML, text, RTF, OFN JSON or image into pages, a Czech legal section tree, a title and warnings.

Modules: `document` (entry point, format detection), `model` (Page, Section, ExtractedDocument,
ExtractionLimits, ExtractionError), `pdf` (pdfplumber + OCR), `ocr` (Tesseract), `office` (docling DOCX and
HTML), `text` (encodings, RTF), `notice` (OFN úřední deska), `normalize` (NFC, de-hyphenation, offset map),
`sections` (legal headings and the tree). Nothing heavy is imported here.
"""
