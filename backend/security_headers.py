"""The response headers each kind of static file needs, in one table-like module.

Why each exists:
- app pages get COOP/COEP (cross-origin isolation enables the SharedArrayBuffer interrupt) and a CSP
  whose `img-src` keeps model-written markdown images from reaching other hosts;
- sandbox documents get a strict CSP: no network but the runtime, no `unsafe-eval`, and the CSP
  `sandbox` directive, so the document is an opaque origin however it is embedded;
- runtime files are fetched from that opaque origin, so they need CORS and CORP.
"""

from __future__ import annotations

from collections.abc import Sequence

NOSNIFF = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}

CROSS_ORIGIN_ISOLATION = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}


def app_page_csp(
    frame_script_sha256: str | None,
    *,
    in_meta: bool = False,
    allow_eval: bool = False,
    chart_script_sha256s: Sequence[str] = (),
) -> str:
    """The app pages' CSP. The SDK's sandbox frame is a srcdoc document, which inherits this policy
    on top of its own, so its inline script's hash (build/js/sandbox/frame.js) is allowed here;
    so are the chart frames' (build/js/charts/charts.json, web/src/ui/chart-view.ts).

    `in_meta`: the exported app's `<meta>` copy. A meta policy cannot hold `frame-ancestors`; the
    export's `<base href>` is same-origin; and `connect-src` allows any http(s) origin because the
    page adds a second policy, before it fetches anything, narrowing it to its own files and the
    endpoint the user entered (web/src/api/endpoint.ts).

    `allow_eval`: the PyScript example, whose trusted interpreter on the page needs `eval`. The
    sandbox frame inherits it but keeps its own policy, which refuses eval: its worker still can't.
    """
    frame_script = f" 'sha256-{frame_script_sha256}'" if frame_script_sha256 else ""
    frame_script += "".join(f" 'sha256-{digest}'" for digest in chart_script_sha256s)
    eval_source = " 'unsafe-eval'" if allow_eval else ""
    directives = [
        "default-src 'self'",
        f"script-src 'self' 'wasm-unsafe-eval'{eval_source}{frame_script}",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "connect-src 'self' http: https:" if in_meta else "connect-src 'self'",
        "worker-src 'self' blob:",
        "frame-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'" if in_meta else "base-uri 'none'",
        "form-action 'self'",
    ]
    if not in_meta:
        directives.append("frame-ancestors 'self'")
    return "; ".join(directives)


RUNTIME_CORS = {
    "Access-Control-Allow-Origin": "*",
    "Cross-Origin-Resource-Policy": "cross-origin",
}


def sandbox_document_csp(origin: str) -> str:
    """CSP for the sandbox frame and its worker. `origin` is the app's own scheme://host:port.

    Opaque-origin documents cannot use 'self' for the app's files, so paths are spelled in full.
    """
    runtime = f"{origin}/runtime/"
    sandbox = f"{origin}/sandbox/"
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {runtime} {sandbox} 'wasm-unsafe-eval'",
            f"connect-src {runtime}",
            f"worker-src {sandbox} blob:",
            "style-src 'unsafe-inline'",
            "img-src data: blob:",
            "base-uri 'none'",
            "form-action 'none'",
            "sandbox allow-scripts",
        ]
    )
