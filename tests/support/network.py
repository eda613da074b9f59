"""Watch every request a browser context makes, workers included, to prove none leaves."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Request


@dataclass
class RequestLog:
    allowed_origin: str
    urls: list[str] = field(default_factory=list)

    def record(self, request: Request) -> None:
        self.urls.append(request.url)

    def foreign(self) -> list[str]:
        """Requests to anything but the app's own origin (data: and blob: stay in the page)."""
        own = urlsplit(self.allowed_origin)
        return [
            url
            for url in self.urls
            if urlsplit(url).scheme not in ("data", "blob")
            and (urlsplit(url).scheme, urlsplit(url).netloc) != (own.scheme, own.netloc)
        ]


def watch_requests(context: BrowserContext, origin: str) -> RequestLog:
    log = RequestLog(origin)
    context.on("request", log.record)
    return log
