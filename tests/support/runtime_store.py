"""The page's runtime store as a test reads it (sdk/runtime-store.ts): the decoded runtime files,
in the page's origin-private file system where the browser can write one
(wasmbox-runtime/<runtime>/<file name>/<sha256>, whole once it is not empty), else, and for
entries an older version kept, in CacheStorage. Keys read "<file name>?sha256=<hash>"."""

STORE = "wasmbox-runtime"

# The folder's keys; none where the page has no folder (or cannot have one).
FOLDER_KEYS = f"""async () => {{
  const keys = [];
  let root = null;
  try {{
    root = await (await navigator.storage.getDirectory()).getDirectoryHandle("{STORE}");
  }} catch {{
    return keys;
  }}
  // The page may be pruning the folder meanwhile: an entry gone is skipped.
  const gone = (error) => {{
    if (error.name !== "NotFoundError") throw error;
  }};
  for await (const runtime of root.values())
    for await (const file of runtime.values())
      for await (const entry of file.values())
        try {{
          if ((await entry.getFile()).size > 0) keys.push(`${{file.name}}?sha256=${{entry.name}}`);
        }} catch (error) {{
          gone(error);
        }}
  return keys;
}}"""

# The keys of both: CacheStorage's, then the folder's.
STORE_KEYS = f"""async () => [
  ...(await (await caches.open("{STORE}")).keys())
    .map((request) => decodeURIComponent(request.url.split("/runtime/")[1])),
  ...(await ({FOLDER_KEYS})()),
]"""
