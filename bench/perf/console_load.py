"""The memory console in headless Chromium against the local server: what a page load costs.

    .venv/bin/python -m bench.perf.console_load [--loads 10] [--memories 500]

Starts the local stack and the dev server, stores `--memories` memories in three namespaces, then
loads the console `--loads` times per view in a fresh tab with the key already in the tab's
session, and prints p50 of the time from navigation start until the view has rendered (the
`view-rendered:<view>` performance mark), the requests made and the bytes the page's own files
weigh (uncompressed: API Gateway's HTTP API does not compress). Needs Debian's chromium and
chromium-driver (`make browser`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import urllib.request
from pathlib import Path

from bench.harness import dev_server, local_stack

VIEWS = ("overview", "recall", "topics", "runs", "documents")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--memories", type=int, default=500)
    args = parser.parse_args()

    from selenium.webdriver.support.ui import WebDriverWait

    from engram_local.browser import headless_chromium

    with (
        local_stack(start_poller=True, durable=False) as stack,
        dev_server(stack) as server,
        tempfile.TemporaryDirectory(prefix="engram-bench-chromium-") as tmp,
    ):
        base, key = server.url, server.key
        for start in range(0, args.memories, 100):
            items = [
                {
                    "content": f"Note {i}: the service {i % 17} restarts after {i % 5} failed checks.",
                    "namespace": f"ns{i % 3}",
                }
                for i in range(start, min(start + 100, args.memories))
            ]
            req = urllib.request.Request(
                f"{base}/v1/memories/batch",
                data=json.dumps({"items": items}).encode(),
                headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
            )
            urllib.request.urlopen(req, timeout=60).read()

        driver = headless_chromium(Path(tmp) / "chromium")
        try:
            driver.get(f"{base}/console")
            driver.execute_script("sessionStorage.setItem('engram.console.key', arguments[0])", key)
            print(f"{args.memories} memories; p50 of {args.loads} loads per view, navigation start to view rendered")
            for view in VIEWS:
                times, requests, own_bytes = [], 0, 0
                for _ in range(args.loads):
                    driver.get("about:blank")
                    driver.get(f"{base}/console#/{view}")
                    mark = f"view-rendered:{view}"
                    WebDriverWait(driver, 30, poll_frequency=0.02).until(
                        # Waited for here, before the loop moves on: `mark` is this view's.
                        lambda d: d.execute_script("return performance.getEntriesByName(arguments[0]).length", mark)  # noqa: B023
                    )
                    times.append(
                        driver.execute_script("return performance.getEntriesByName(arguments[0])[0].startTime", mark)
                    )
                    entries = driver.execute_script(
                        "return performance.getEntriesByType('resource').map((e) => [e.name, e.decodedBodySize])"
                    )
                    requests = len(entries) + 1  # and the page itself
                    own_bytes = sum(size for name, size in entries if "/console/" in name)
                print(
                    f"  {view:10s} {statistics.median(times):7.1f} ms   {requests:3d} requests   "
                    f"{own_bytes / 1024:5.1f} KiB of console files"
                )
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
