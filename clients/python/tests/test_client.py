"""Tests of strata_client against a real strata service.

Run by test/clients/python.slow.test.ts, which starts the service on a copy of
examples/roboco and sets STRATA_TEST_URL (the service), STRATA_TEST_PACK (the pack
folder it watches) and STRATA_TEST_EXPECT (a folder with the exact expected prompts).
The parser and offline tests run without a service too.
"""

from __future__ import annotations

import os
import socket
import threading
import unittest
from pathlib import Path

import warnings

from strata_client import Prompt, PromptClient, PromptServiceError, ServiceWarning, StrataWarning, parse_sse

URL = os.environ.get("STRATA_TEST_URL")
PACK = os.environ.get("STRATA_TEST_PACK")
EXPECT = os.environ.get("STRATA_TEST_EXPECT")


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class Recording(PromptClient):
    """Records the HTTP status of every request the client makes."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.statuses: list[int] = []

    def _request(self, method, path, headers, data=None):
        status, response_headers, raw = super()._request(method, path, headers, data)
        self.statuses.append(status)
        return status, response_headers, raw


class ParseSse(unittest.TestCase):
    def test_events_ids_retry_comments_and_multiline_data(self) -> None:
        lines = [": ping", "event: hello", "id: 1", "retry: 2000", 'data: {"version":"a"}', "",
                 "event: reload", "id: 2", "data: line one", "data: line two", "",
                 "data: plain", "", "event: nodata", ""]
        events = list(parse_sse(iter(lines)))
        self.assertEqual([(e.event, e.id, e.retry, e.data) for e in events], [
            ("hello", "1", 2000, '{"version":"a"}'),
            ("reload", "2", None, "line one\nline two"),
            ("message", "2", None, "plain"),
        ])


class Offline(unittest.TestCase):
    def test_reconnects_after_the_retry_the_stream_gives(self) -> None:
        # A stand-in service whose event stream says hello with ``retry: 1`` and ends; the
        # client's own first delay is an hour, so only the service's retry brings it back.
        import http.server

        streams = threading.Semaphore(0)

        class Events(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/api/events":
                    self.send_error(503)
                    return
                body = b"retry: 1\nevent: hello\nid: b.1\ndata: {}\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                streams.release()

            def log_message(self, *args) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Events)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        client = PromptClient(f"http://127.0.0.1:{server.server_address[1]}", agent="ada",
                              fallback="x", timeout=5, reconnect=3600)
        try:
            client.subscribe()
            self.assertTrue(streams.acquire(timeout=30))
            self.assertTrue(streams.acquire(timeout=30), "no second stream after retry: 1")
        finally:
            client.close()
            server.shutdown()
            server.server_close()

    def test_fallback_before_the_first_success(self) -> None:
        client = PromptClient(closed_port_url(), agent="ada", fallback="You are helpful.", timeout=2)
        self.assertEqual(client.get(), Prompt(text="You are helpful.", source="fallback"))

    def test_unreachable_without_fallback_raises_unavailable(self) -> None:
        client = PromptClient(closed_port_url(), agent="ada", timeout=2)
        with self.assertRaises(PromptServiceError) as caught:
            client.get()
        self.assertEqual(caught.exception.code, "UNAVAILABLE")
        self.assertFalse(caught.exception.permanent)

    def test_needs_an_agent_or_a_role(self) -> None:
        with self.assertRaises(ValueError):
            PromptClient("http://127.0.0.1:1")


@unittest.skipUnless(URL and PACK and EXPECT, "needs a running strata service")
class AgainstTheService(unittest.TestCase):
    def expected(self, name: str) -> str:
        return Path(EXPECT, name).read_bytes().decode("utf-8")

    def test_fetches_the_exact_prompt_then_revalidates_with_304(self) -> None:
        client = Recording(URL, agent="ada")
        first = client.get()
        self.assertEqual(first.text, self.expected("ada.txt"))
        self.assertEqual(first.source, "service")
        self.assertRegex(first.sha256 or "", r"^[0-9a-f]{64}$")
        self.assertRegex(first.version or "", r"^[0-9a-f]{16}$")
        second = client.get()
        self.assertEqual(second, first)
        self.assertEqual(client.statuses, [200, 304])

    def test_holds_the_service_warnings_and_says_each_once(self) -> None:
        given: list[ServiceWarning] = []
        client = Recording(URL, role="developer", team="nobody", on_warning=given.append)
        first = client.get()
        self.assertEqual([w.code for w in first.warnings], ["UNKNOWN_TEAM"])
        self.assertIn('"nobody"', first.warnings[0].message or "")
        self.assertEqual(client.get().warnings, first.warnings)
        self.assertEqual(client.statuses, [200, 304])
        self.assertEqual(given, list(first.warnings))
        self.assertEqual(PromptClient(URL, agent="ada").get().warnings, ())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            PromptClient(URL, role="developer", team="nobody").get()
        ours = [w.message for w in caught if issubclass(w.category, StrataWarning)]
        self.assertEqual([w.code for w in ours], ["UNKNOWN_TEAM"])

    def test_ambient_text_is_composed_by_the_service(self) -> None:
        client = PromptClient(URL, agent="ada", ambient="Ship it.")
        self.assertEqual(client.get().text, self.expected("ada-ambient.txt"))

    def test_unknown_agent_is_an_error_not_the_fallback(self) -> None:
        client = PromptClient(URL, agent="nobody-here", fallback="You are helpful.")
        with self.assertRaises(PromptServiceError) as caught:
            client.get()
        self.assertEqual(caught.exception.status, 404)
        self.assertEqual(caught.exception.code, "UNKNOWN_AGENT")
        self.assertTrue(caught.exception.permanent)

    def test_bad_name_is_an_error(self) -> None:
        client = PromptClient(URL, role="../etc")
        with self.assertRaises(PromptServiceError) as caught:
            client.get()
        self.assertEqual(caught.exception.status, 400)
        self.assertEqual(caught.exception.code, "BAD_NAME")

    def test_keeps_the_last_good_prompt_while_the_service_is_down(self) -> None:
        errors: list[PromptServiceError] = []
        client = PromptClient(URL, agent="ada", fallback="unused", timeout=2, on_error=errors.append)
        good = client.get()
        client.url = closed_port_url()
        stale = client.get()
        self.assertEqual(stale, Prompt(text=good.text, source="stale", sha256=good.sha256, version=good.version))
        self.assertEqual([e.code for e in errors], ["UNAVAILABLE"])

    def test_subscribe_refreshes_when_the_pack_changes(self) -> None:
        changed = threading.Event()
        seen: list[Prompt] = []
        marker = "Python client marker: reviewed."

        def on_change(prompt: Prompt) -> None:
            seen.append(prompt)
            if marker in prompt.text:
                changed.set()

        with PromptClient(URL, agent="grace", on_change=on_change) as client:
            client.subscribe()
            before = client.get()
            identity = Path(PACK, "identities", "grace.md")
            original = identity.read_bytes()
            try:
                identity.write_bytes(original + ("\n\n" + marker + "\n").encode("utf-8"))
                self.assertTrue(changed.wait(60), "no refresh after the pack changed")
            finally:
                identity.write_bytes(original)
            after = client.current
            self.assertIsNotNone(after)
            self.assertTrue(after.text.endswith(marker))
            self.assertTrue(after.text.startswith(before.text[:200]))
            self.assertNotEqual(after.version, before.version)


if __name__ == "__main__":
    unittest.main()
