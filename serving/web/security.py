"""What every response of the app says to the browser, and HEAD wherever GET is answered.

- ``X-Content-Type-Options: nosniff`` on everything: a file is what its media type says, never sniffed into HTML;
- a Content-Security-Policy on every response that has none of its own: the pages run no script and load nothing
  from outside (the API docs run their own bundled scripts; the logo ReDoc names on a CDN is never fetched);
- a crawled original that is not a PDF is third-party content: it is served in a sandbox (:data:`ORIGINAL_POLICY`,
  an opaque origin where no script runs and nothing outside is loaded), so a board page's script never runs on the
  search page's origin;
- HEAD is answered as GET would be, without the body.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

NOSNIFF = (b"x-content-type-options", b"nosniff")
PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'none'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'self'"
)
DOCS_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'self'"
)
DOCS_PATHS = ("/docs", "/redoc")
ORIGINAL_POLICY = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def original_headers(media_type: str) -> dict[str, str]:
    """Headers of a crawled original: a PDF opens in the browser's viewer; anything else in a sandbox."""
    return (
        {} if media_type in ("application/pdf", "application/x-pdf") else {"Content-Security-Policy": ORIGINAL_POLICY}
    )


class SafeResponses:
    """ASGI middleware: the headers above on every HTTP response, and HEAD answered as GET without its body."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}
        policy = DOCS_POLICY if scope["path"].startswith(DOCS_PATHS) else PAGE_POLICY
        finished = False

        async def send_safely(message: Message) -> None:
            nonlocal finished
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != NOSNIFF[0]]
                headers.append(NOSNIFF)
                if not any(k.lower() == b"content-security-policy" for k, _ in headers):
                    headers.append((b"content-security-policy", policy.encode()))
                message = {**message, "headers": headers}
            elif message["type"] == "http.response.body" and head:
                if finished:
                    return  # the rest of a GET body HEAD does not send
                finished = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app(scope, receive, send_safely)
