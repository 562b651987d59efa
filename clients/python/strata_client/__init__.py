"""A client for the strata prompt service, for agent processes written in Python.

Standard library only (Python >= 3.10). It fetches an agent's composed system prompt with
ETag revalidation (an unchanged prompt costs a 304), keeps the last good prompt while the
service is unreachable, answers a configured fallback before the first success, and can
subscribe to the service's Server-Sent Events to refresh as soon as the pack changes.

Example::

    from strata_client import PromptClient

    prompts = PromptClient("http://127.0.0.1:7411", agent="ada",
                           fallback="You are a careful software developer.")
    prompts.subscribe()                 # refresh on every new pack version
    system = prompts.get().text         # before every model call: cheap when unchanged
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings as _warnings
from dataclasses import dataclass
from typing import Callable, Iterator, Literal, Mapping, Optional, Union

__all__ = ["Prompt", "PromptClient", "PromptServiceError", "ServiceWarning", "SseEvent", "StrataWarning", "parse_sse"]

Source = Literal["service", "stale", "fallback"]
Scalar = Union[str, int, float, bool]


@dataclass(frozen=True)
class ServiceWarning:
    """A warning the service gave with a prompt (a team or role it does not know, the
    fallback text used, ...): its code, and its message and place where the answer has them."""

    code: str
    message: Optional[str] = None
    file: Optional[str] = None
    line: Optional[int] = None
    col: Optional[int] = None


class StrataWarning(UserWarning):
    """The category of the warnings the client gives by default (``warnings.warn``); ``code`` is the service's."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Prompt:
    """A prompt as the client holds it."""

    text: str
    #: ``service``: fresh (200 or 304); ``stale``: the last good copy while the service
    #: fails; ``fallback``: the configured text, before any success.
    source: Source
    #: sha256 of the text (None for the fallback).
    sha256: Optional[str] = None
    #: The pack version the prompt was composed from (None for the fallback).
    version: Optional[str] = None
    #: The warnings the service gave with this prompt (the result's ``diagnostics``).
    warnings: tuple = ()


class PromptServiceError(Exception):
    """Why the service could not answer.

    ``code`` is ``UNAVAILABLE`` (network error, timeout, 5xx) or the service's own error
    code (``UNKNOWN_AGENT``, ``BAD_NAME``, ...). ``permanent`` is true for answers that
    retrying will not change (4xx): the client raises those instead of serving a stale
    copy or the fallback, because the request itself is wrong.
    """

    def __init__(self, code: str, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status

    @property
    def permanent(self) -> bool:
        return self.status is not None and 400 <= self.status < 500 and self.status not in (408, 429)


@dataclass(frozen=True)
class SseEvent:
    """One Server-Sent Event."""

    event: str
    data: str
    id: Optional[str] = None
    retry: Optional[int] = None


class PromptClient:
    """Fetches one agent's (or role's) prompt from a strata service.

    Thread-safe: ``get()`` may be called from any thread, also while ``subscribe()``'s
    background thread refreshes the prompt.
    """

    def __init__(
        self,
        url: str,
        *,
        agent: Optional[str] = None,
        role: Optional[str] = None,
        team: Optional[str] = None,
        settings: Optional[Mapping[str, Scalar]] = None,
        vars: Optional[Mapping[str, Scalar]] = None,
        ambient: Optional[str] = None,
        fallback: Optional[str] = None,
        timeout: float = 5.0,
        reconnect: float = 1.0,
        on_change: Optional[Callable[[Prompt], None]] = None,
        on_error: Optional[Callable[[PromptServiceError], None]] = None,
        on_warning: Optional[Callable[[ServiceWarning], None]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        if agent is None and role is None:
            raise ValueError("PromptClient needs an agent or a role")
        self.url = url.rstrip("/")
        self.agent, self.role, self.team = agent, role, team
        self.settings = dict(settings or {})
        self.vars = dict(vars or {})
        self.ambient = ambient
        self.fallback = fallback
        self.timeout = timeout
        self.reconnect = reconnect
        self.on_change = on_change
        self.on_error = on_error
        #: Called with each warning of a prompt the service sent (not again for a 304);
        #: default: ``warnings.warn`` with the category :class:`StrataWarning`.
        self.on_warning = on_warning
        self.headers = dict(headers or {})
        self._lock = threading.Lock()
        self._last: Optional[Prompt] = None
        self._etag: Optional[str] = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._response = None
        self._last_event_id: Optional[str] = None

    @property
    def current(self) -> Optional[Prompt]:
        """The prompt held now, without asking the service (None before anything)."""
        with self._lock:
            if self._last is not None:
                return self._last
        if self.fallback is not None:
            return Prompt(text=self.fallback, source="fallback")
        return None

    def get(self) -> Prompt:
        """Fetches the prompt, revalidating the copy held.

        When the service is unreachable or failing (network error, timeout, 5xx), answers
        the last good prompt (``source="stale"``), else the fallback; raises
        :class:`PromptServiceError` only when it has neither, or when the service refuses
        the request itself (4xx: unknown agent, bad name, bad setting).
        """
        try:
            prompt, changed = self._fetch()
        except PromptServiceError as error:
            self._report(error)
            if error.permanent:
                raise
            with self._lock:
                last = self._last
            if last is not None:
                return Prompt(
                    text=last.text, source="stale", sha256=last.sha256, version=last.version, warnings=last.warnings
                )
            if self.fallback is not None:
                return Prompt(text=self.fallback, source="fallback")
            raise
        if changed and self.on_change is not None:
            self.on_change(prompt)
        return prompt

    def subscribe(self) -> "PromptClient":
        """Listens to ``/api/events`` in a daemon thread and refreshes the prompt on every
        ``reload`` event and after every (re)connect, reconnecting with backoff (doubling
        up to 30 s) and resuming with ``Last-Event-ID``. Returns self; stop with close().
        """
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._listen, name="strata-events", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stops the event stream (if any) and waits for its thread."""
        self._stop.set()
        response = self._response
        if response is not None:
            try:
                response.close()
            except OSError:
                pass
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=self.timeout + 1)

    def __enter__(self) -> "PromptClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internal ---

    def _fetch(self) -> tuple[Prompt, bool]:
        if self.ambient is not None:
            body = self._request_json("POST", "/api/compose", self._compose_body())
            return self._remember(body, etag=None)
        headers = {"Accept": "application/json"}
        with self._lock:
            if self._etag is not None and self._last is not None:
                headers["If-None-Match"] = self._etag
        status, response_headers, raw = self._request("GET", self._prompt_path(), headers=headers)
        if status == 304:
            with self._lock:
                if self._last is not None:
                    return self._last, False
            # A 304 without a copy cannot happen unless the ETag was lost: fetch afresh.
            status, response_headers, raw = self._request("GET", self._prompt_path(), headers={"Accept": "application/json"})
        return self._remember(_json(raw, status), etag=response_headers.get("etag"))

    def _remember(self, body: dict, etag: Optional[str]) -> tuple[Prompt, bool]:
        prompt = Prompt(
            text=body["text"],
            source="service",
            sha256=body.get("sha256"),
            version=body.get("version"),
            warnings=_warnings_of(body.get("diagnostics")),
        )
        for warning in prompt.warnings:
            (self.on_warning or _emit_warning)(warning)
        with self._lock:
            changed = self._last is None or self._last.sha256 != prompt.sha256
            self._last = prompt
            self._etag = etag
        return prompt, changed

    def _prompt_path(self) -> str:
        query: list[tuple[str, str]] = []
        if self.agent is not None:
            path = f"/api/agents/{urllib.parse.quote(self.agent, safe='')}/prompt"
            if self.role is not None:
                query.append(("role", self.role))
        else:
            path = f"/api/prompts/{urllib.parse.quote(str(self.role), safe='')}"
        if self.team is not None:
            query.append(("team", self.team))
        query += [(f"set.{k}", _scalar(v)) for k, v in self.settings.items()]
        query += [(f"var.{k}", _scalar(v)) for k, v in self.vars.items()]
        return path + ("?" + urllib.parse.urlencode(query) if query else "")

    def _compose_body(self) -> dict:
        body: dict = {"ambient": self.ambient}
        for key in ("agent", "role", "team"):
            if getattr(self, key) is not None:
                body[key] = getattr(self, key)
        if self.settings:
            body["settings"] = self.settings
        if self.vars:
            body["vars"] = self.vars
        return body

    def _request_json(self, method: str, path: str, body: dict) -> dict:
        data = json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json", "Content-Type": "application/json"}
        status, _, raw = self._request(method, path, headers=headers, data=data)
        return _json(raw, status)

    def _request(self, method: str, path: str, headers: Mapping[str, str], data: Optional[bytes] = None) -> tuple[int, dict, bytes]:
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={**self.headers, **headers})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
        except urllib.error.HTTPError as error:
            if error.code == 304:
                return 304, {k.lower(): v for k, v in error.headers.items()}, b""
            raise _service_error(error.code, error.read()) from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise PromptServiceError("UNAVAILABLE", f"prompt service unreachable: {reason}") from None

    def _listen(self) -> None:
        # The first delay is ``reconnect`` until the service says its own (``retry:``, as an
        # EventSource takes it); each failed try after that doubles it.
        first = self.reconnect
        delay = first
        while not self._stop.is_set():
            try:
                headers = {**self.headers, "Accept": "text/event-stream"}
                if self._last_event_id is not None:
                    headers["Last-Event-ID"] = self._last_event_id
                request = urllib.request.Request(self.url + "/api/events", headers=headers)
                # No read timeout on the stream: the service sends a heartbeat comment.
                with urllib.request.urlopen(request) as response:
                    self._response = response
                    for event in parse_sse(_lines(response)):
                        if self._stop.is_set():
                            return
                        if event.id is not None:
                            self._last_event_id = event.id
                        if event.retry is not None:
                            first = event.retry / 1000
                        if event.event in ("hello", "reload"):
                            delay = first
                            self._refresh_quietly()
            except urllib.error.HTTPError as error:
                self._report(_service_error(error.code, error.read()))
            except Exception as error:  # noqa: BLE001 - a stream cut off may fail any way
                # close() shuts the response under this thread's read: http.client then
                # fails as it may (an AttributeError on its closed file, not only OSError).
                if self._stop.is_set():
                    return
                self._report(PromptServiceError("UNAVAILABLE", f"event stream failed: {error}"))
            finally:
                self._response = None
            if self._stop.wait(delay):
                return
            delay = min(delay * 2, 30.0)

    def _refresh_quietly(self) -> None:
        try:
            self.get()
        except PromptServiceError:
            pass  # already reported through on_error

    def _report(self, error: PromptServiceError) -> None:
        if self.on_error is not None:
            self.on_error(error)


def parse_sse(lines: Iterator[str]) -> Iterator[SseEvent]:
    """Parses a Server-Sent Events stream (already split into lines, without newlines)
    into events, as the HTML standard's EventSource does (comments and unknown fields
    ignored; ``data`` lines joined by newlines; the event name defaults to ``message``).
    """
    event, data, event_id, retry = "", [], None, None
    for line in lines:
        if line == "":
            if data:
                yield SseEvent(event=event or "message", data="\n".join(data), id=event_id, retry=retry)
            event, data, retry = "", [], None
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
        elif field == "id" and "\0" not in value:
            event_id = value
        elif field == "retry" and value.isdigit():
            retry = int(value)


def _warnings_of(diagnostics: object) -> tuple:
    """The warnings of a result's ``diagnostics``."""
    if not isinstance(diagnostics, list):
        return ()
    out = []
    for d in diagnostics:
        if not isinstance(d, dict) or d.get("severity") != "warning" or not isinstance(d.get("code"), str):
            continue
        pick = lambda key, kind: d[key] if isinstance(d.get(key), kind) and not isinstance(d.get(key), bool) else None
        out.append(ServiceWarning(d["code"], pick("message", str), pick("file", str), pick("line", int), pick("col", int)))
    return tuple(out)


def _emit_warning(warning: ServiceWarning) -> None:
    place = ":".join(str(x) for x in (warning.file, warning.line, warning.col) if x is not None)
    message = warning.message or "the prompt service gave this warning with the prompt"
    text = f"{warning.code}: {place + ': ' if place else ''}{message}"
    _warnings.warn(StrataWarning(text, warning.code), stacklevel=4)


def _lines(response) -> Iterator[str]:
    for raw in response:
        yield raw.decode("utf-8").rstrip("\r\n")


def _json(raw: bytes, status: int) -> dict:
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise PromptServiceError("UNAVAILABLE", f"prompt service answered {status} with a body that is not JSON", status) from None
    if not isinstance(body, dict) or not isinstance(body.get("text"), str):
        raise PromptServiceError("UNAVAILABLE", f"prompt service answered {status} without a prompt text", status)
    return body


def _service_error(status: int, raw: bytes) -> PromptServiceError:
    code = "UNAVAILABLE" if status >= 500 else "HTTP_ERROR"
    message = f"prompt service answered {status}"
    try:
        error = json.loads(raw.decode("utf-8")).get("error", {})
        code = error.get("code") or code
        if error.get("message"):
            message = f"{message}: {error['message']}"
    except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        pass
    return PromptServiceError(code, message, status)


def _scalar(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
