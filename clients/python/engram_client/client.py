"""The clients: `Engram` (blocking) and `AsyncEngram` (asyncio), the same methods on both."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, TypeVar

import httpx

from engram_client import endpoints
from engram_client.endpoints import Call
from engram_client.errors import EngramError, JobFailed, UploadFailed, WaitTimedOut
from engram_client.models import ExportJob, ImportJob, Kind, Run, UploadStatus, UploadTicket
from engram_client.retry import RetryPolicy
from engram_client.transport import (
    DEFAULT_TIMEOUT,
    AsyncEndpoint,
    AsyncPages,
    Attempts,
    Settings,
    SyncEndpoint,
    SyncPages,
    connection_failed,
    read,
)
from engram_client.uploads import (
    BLOCK_BYTES,
    LocalFile,
    ProgressCallback,
    Stage,
    UploadProgress,
    async_blocks,
    blocks,
    describe,
)

Chunking = Literal["document", "focused"]
T = TypeVar("T")


def _upload_call(file: LocalFile, options: dict[str, Any]) -> Call[UploadTicket]:
    return endpoints.create_upload(file.size, file.sha256, content_type=file.content_type, **options)


def _report(progress: ProgressCallback | None, job_id: str, total: int) -> Callable[[int], None]:
    def report(sent: int) -> None:
        if progress is not None:
            progress(UploadProgress("uploading", job_id, sent, total))

    return report


def _stage(status: str, ready: str, failed: str = "failed") -> Stage:
    return "ready" if status == ready else "failed" if status == failed else "processing"


def upload_settled(status: UploadStatus, progress: ProgressCallback | None) -> bool:
    """Report a polled upload; True once ready, UploadFailed once failed."""
    stage = _stage(status.status, "ready")
    if progress is not None:
        progress(UploadProgress(stage, status.upload_id, status.size_bytes, status.size_bytes, status))
    if stage == "failed":
        raise UploadFailed(status.upload_id, status.reason, status)
    return stage == "ready"


def import_settled(job: ImportJob, progress: ProgressCallback | None) -> bool:
    """Report a polled import; True once done (its report lists refused lines), JobFailed once failed."""
    stage = _stage(job.status, "done")
    if progress is not None:
        progress(UploadProgress(stage, job.id, job.size_bytes, job.size_bytes, job))
    if stage == "failed":
        raise JobFailed("import", job.id, job.error, job)
    return stage == "ready"


def export_settled(job: ExportJob) -> bool:
    if job.status == "failed":
        raise JobFailed("export", job.id, job.error, job)
    return job.status == "ready"


def _download_checked(job: ExportJob, written: int) -> ExportJob:
    if job.bytes is not None and written != job.bytes:
        raise EngramError(f"export {job.id}: downloaded {written} bytes of {job.bytes}")
    return job


def _s3_call(method: str, url: str) -> Call[httpx.Response]:
    # Presigned URLs: a PUT or GET of one object, safe to send again; the path shown in errors
    # leaves out the signature.
    return Call(method, url.split("?", 1)[0], lambda r: r, retry_safe=True)


class Engram:
    """A blocking client. `Engram("https://...", "egk_...")`, or with ENGRAM_API_URL and ENGRAM_API_KEY set,
    `Engram()`. Use it as a context manager, or call `close()`, to release its connections."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.settings = Settings.resolve(base_url, api_key, retry)
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Engram:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _exchange(
        self, make_request: Callable[[], httpx.Request], call: Call[Any], stream: bool = False
    ) -> httpx.Response:
        """Send, and again while the retry policy allows; `stream`: the body of the answer is not read."""
        attempts = Attempts(self.settings.retry, call)
        while True:
            try:
                response = self._http.send(make_request(), stream=stream)
            except httpx.TransportError as error:
                delay = attempts.after_error(error)
                if delay is None:
                    raise connection_failed(call, error, attempts) from error
            else:
                delay = attempts.after_response(response)
                if delay is None:
                    return response
                response.close()
            time.sleep(delay)

    def _send(self, call: Call[T]) -> T:
        return read(call, self._exchange(lambda: self.settings.request(self._http, call), call))

    # ---- memories
    store_memory = SyncEndpoint(endpoints.store_memory)
    store_memories = SyncEndpoint(endpoints.store_memories)
    get_memory = SyncEndpoint(endpoints.get_memory)
    update_memory = SyncEndpoint(endpoints.update_memory)
    forget = SyncEndpoint(endpoints.forget)
    restore_memory = SyncEndpoint(endpoints.restore_memory)
    list_memories = SyncEndpoint(endpoints.list_memories)
    iter_memories = SyncPages(endpoints.list_memories)
    list_trash = SyncEndpoint(endpoints.list_trash)
    iter_trash = SyncPages(endpoints.list_trash)
    memory_history = SyncEndpoint(endpoints.memory_history)
    # ---- recall
    recall = SyncEndpoint(endpoints.recall)
    feedback = SyncEndpoint(endpoints.feedback)
    # ---- tasks
    start_task = SyncEndpoint(endpoints.start_task)
    get_task = SyncEndpoint(endpoints.get_task)
    list_tasks = SyncEndpoint(endpoints.list_tasks)
    iter_tasks = SyncPages(endpoints.list_tasks)
    record_task_events = SyncEndpoint(endpoints.record_task_events)
    list_task_events = SyncEndpoint(endpoints.list_task_events)
    redact_task_event = SyncEndpoint(endpoints.redact_task_event)
    checkpoint_task = SyncEndpoint(endpoints.checkpoint_task)
    list_checkpoints = SyncEndpoint(endpoints.list_checkpoints)
    end_task = SyncEndpoint(endpoints.end_task)
    task_context = SyncEndpoint(endpoints.task_context)
    task_context_text = SyncEndpoint(endpoints.task_context_text)
    # ---- graph
    link_memories = SyncEndpoint(endpoints.link_memories)
    link_memories_batch = SyncEndpoint(endpoints.link_memories_batch)
    list_links = SyncEndpoint(endpoints.list_links)
    iter_links = SyncPages(endpoints.list_links)
    unlink = SyncEndpoint(endpoints.unlink)
    traverse = SyncEndpoint(endpoints.traverse)
    # ---- conversations
    create_conversation = SyncEndpoint(endpoints.create_conversation)
    start_conversation = create_conversation  # the MCP tool's name
    get_conversation = SyncEndpoint(endpoints.get_conversation)
    list_conversations = SyncEndpoint(endpoints.list_conversations)
    iter_conversations = SyncPages(endpoints.list_conversations)
    delete_conversation = SyncEndpoint(endpoints.delete_conversation)
    append_conversation = SyncEndpoint(endpoints.append_conversation)
    list_messages = SyncEndpoint(endpoints.list_messages)
    iter_messages = SyncPages(endpoints.list_messages)
    # ---- documents
    store_document = SyncEndpoint(endpoints.store_document)
    create_upload = SyncEndpoint(endpoints.create_upload)
    get_upload = SyncEndpoint(endpoints.get_upload)
    query_document = SyncEndpoint(endpoints.query_document)
    # ---- topics, resume, prime
    list_topics = SyncEndpoint(endpoints.list_topics)
    lookup_topics = SyncEndpoint(endpoints.lookup_topics)
    get_topic = SyncEndpoint(endpoints.get_topic)
    resume = SyncEndpoint(endpoints.resume)
    resume_text = SyncEndpoint(endpoints.resume_text)
    prime = SyncEndpoint(endpoints.prime)
    # ---- consolidation
    consolidate = SyncEndpoint(endpoints.consolidate)
    list_consolidation_runs = SyncEndpoint(endpoints.list_consolidation_runs)
    iter_consolidation_runs = SyncPages(endpoints.list_consolidation_runs)
    get_consolidation_run = SyncEndpoint(endpoints.get_consolidation_run)
    consolidation_run = get_consolidation_run  # the MCP tool's name
    list_consolidation_actions = SyncEndpoint(endpoints.list_consolidation_actions)
    iter_consolidation_actions = SyncPages(endpoints.list_consolidation_actions)
    undo_consolidation = SyncEndpoint(endpoints.undo_consolidation)
    # ---- extraction
    extract = SyncEndpoint(endpoints.extract)
    list_extraction_runs = SyncEndpoint(endpoints.list_extraction_runs)
    iter_extraction_runs = SyncPages(endpoints.list_extraction_runs)
    get_extraction_run = SyncEndpoint(endpoints.get_extraction_run)
    extraction_run = get_extraction_run  # the MCP tool's name
    undo_extraction = SyncEndpoint(endpoints.undo_extraction)
    get_extraction_settings = SyncEndpoint(endpoints.get_extraction_settings)
    put_extraction_settings = SyncEndpoint(endpoints.put_extraction_settings)
    # ---- export and import
    create_export = SyncEndpoint(endpoints.create_export)
    get_export = SyncEndpoint(endpoints.get_export)
    create_import = SyncEndpoint(endpoints.create_import)
    get_import = SyncEndpoint(endpoints.get_import)
    # ---- admin
    health = SyncEndpoint(endpoints.health)
    stats = SyncEndpoint(endpoints.stats)
    usage = SyncEndpoint(endpoints.usage)
    create_key = SyncEndpoint(endpoints.create_key)
    list_keys = SyncEndpoint(endpoints.list_keys)
    revoke_key = SyncEndpoint(endpoints.revoke_key)
    purge_namespace = SyncEndpoint(endpoints.purge_namespace)

    # ---- composite calls

    def _wait(
        self, fetch: Callable[[], T], settled: Callable[[T], bool], what: str, timeout: float, interval: float
    ) -> T:
        deadline = time.monotonic() + timeout
        while True:
            current = fetch()
            if settled(current):
                return current
            if time.monotonic() >= deadline:
                raise WaitTimedOut(f"{what} still {getattr(current, 'status', 'unfinished')} after {timeout} s")
            time.sleep(interval)

    def _put_file(self, url: str, headers: Mapping[str, str], file: LocalFile, report: Callable[[int], None]) -> None:
        put = _s3_call("PUT", url)
        response = self._exchange(
            lambda: self._http.build_request("PUT", url, headers=headers, content=blocks(file, report)), put
        )
        read(put, response)

    def upload_document(
        self,
        path: str | os.PathLike[str],
        *,
        content_type: str | None = None,
        namespace: str | None = None,
        kind: Kind | None = None,
        importance: float | None = None,
        tags: Sequence[str] | None = None,
        source: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        chunking: Chunking | None = None,
        progress: ProgressCallback | None = None,
        wait: bool = True,
        wait_timeout: float = 300.0,
        poll_interval: float = 0.5,
    ) -> UploadStatus:
        """Store a document of up to 50 MiB from a file: its SHA-256 is computed, a presigned PUT is
        asked for and the file sent to it in 1 MiB blocks (S3 checks the checksum), then the upload's
        status is polled until `ready` (`wait=False`: return the pending status at once). `progress`
        is called with bytes sent, then with each polled status. Raises UploadFailed with the server's
        reason (size, checksum, not UTF-8), WaitTimedOut after `wait_timeout` seconds."""
        file = describe(path, content_type)
        options = {
            "namespace": namespace,
            "kind": kind,
            "importance": importance,
            "tags": tags,
            "source": source,
            "metadata": metadata,
            "chunking": chunking,
        }
        ticket: UploadTicket = self._send(_upload_call(file, options))
        self._put_file(ticket.url, ticket.headers, file, _report(progress, ticket.upload_id, file.size))
        if not wait:
            return self.get_upload(ticket.upload_id)
        return self.wait_for_upload(
            ticket.upload_id, timeout=wait_timeout, poll_interval=poll_interval, progress=progress
        )

    def wait_for_upload(
        self,
        upload_id: str,
        *,
        timeout: float = 300.0,
        poll_interval: float = 0.5,
        progress: ProgressCallback | None = None,
    ) -> UploadStatus:
        """Poll an upload until it is ready (returned) or failed (UploadFailed)."""
        return self._wait(
            lambda: self.get_upload(upload_id),
            lambda status: upload_settled(status, progress),
            f"upload {upload_id}",
            timeout,
            poll_interval,
        )

    def wait_for_consolidation(self, run_id: str, *, timeout: float = 600.0, poll_interval: float = 1.0) -> Run:
        """Poll a consolidation run until it is done, failed or undone."""
        return self._wait(
            lambda: self.get_consolidation_run(run_id, limit=1),
            lambda run: run.finished,
            f"consolidation run {run_id}",
            timeout,
            poll_interval,
        )

    def wait_for_export(self, export_id: str, *, timeout: float = 600.0, poll_interval: float = 1.0) -> ExportJob:
        """Poll an export until it is ready (returned, with a fresh `download_url`) or failed (JobFailed)."""
        return self._wait(
            lambda: self.get_export(export_id), export_settled, f"export {export_id}", timeout, poll_interval
        )

    def export_to_file(
        self,
        path: str | os.PathLike[str],
        *,
        namespace: str | None = None,
        timeout: float = 600.0,
        poll_interval: float = 1.0,
    ) -> ExportJob:
        """Export this tenant's data (or one namespace) as JSONL into `path`: queue the export, wait
        for it, and stream the file from its presigned URL (never whole in memory)."""
        job = self.wait_for_export(
            self.create_export(namespace=namespace).id, timeout=timeout, poll_interval=poll_interval
        )
        url = job.download_url or ""  # set on every ready export
        get = _s3_call("GET", url)
        response = self._exchange(lambda: self._http.build_request("GET", url), get, stream=True)
        written = 0
        try:
            if not response.is_success:
                response.read()
                read(get, response)
            with open(path, "wb") as out:
                for block in response.iter_bytes(BLOCK_BYTES):
                    written += out.write(block)
        finally:
            response.close()
        return _download_checked(job, written)

    def import_file(
        self,
        path: str | os.PathLike[str],
        *,
        namespace: str | None = None,
        id_policy: Literal["keep", "map"] | None = None,
        progress: ProgressCallback | None = None,
        wait: bool = True,
        wait_timeout: float = 600.0,
        poll_interval: float = 0.5,
    ) -> ImportJob:
        """Import an export file: a presigned PUT with its size and SHA-256, the file sent in blocks,
        then the import polled until done (its `report` lists what was imported, deduplicated and
        refused) or failed (JobFailed)."""
        file = describe(path, "application/x-ndjson")
        ticket = self.create_import(file.size, file.sha256, namespace=namespace, id_policy=id_policy)
        self._put_file(ticket.upload_url, ticket.headers, file, _report(progress, ticket.id, file.size))
        if not wait:
            return self.get_import(ticket.id)
        return self._wait(
            lambda: self.get_import(ticket.id),
            lambda job: import_settled(job, progress),
            f"import {ticket.id}",
            wait_timeout,
            poll_interval,
        )


class AsyncEngram:
    """The asyncio client: the methods of `Engram`, awaited. `async with AsyncEngram(...) as engram:`."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.settings = Settings.resolve(base_url, api_key, retry)
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncEngram:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _exchange(
        self, make_request: Callable[[], httpx.Request], call: Call[Any], stream: bool = False
    ) -> httpx.Response:
        attempts = Attempts(self.settings.retry, call)
        while True:
            try:
                response = await self._http.send(make_request(), stream=stream)
            except httpx.TransportError as error:
                delay = attempts.after_error(error)
                if delay is None:
                    raise connection_failed(call, error, attempts) from error
            else:
                delay = attempts.after_response(response)
                if delay is None:
                    return response
                await response.aclose()
            await asyncio.sleep(delay)

    async def _send(self, call: Call[T]) -> T:
        return read(call, await self._exchange(lambda: self.settings.request(self._http, call), call))

    # ---- memories
    store_memory = AsyncEndpoint(endpoints.store_memory)
    store_memories = AsyncEndpoint(endpoints.store_memories)
    get_memory = AsyncEndpoint(endpoints.get_memory)
    update_memory = AsyncEndpoint(endpoints.update_memory)
    forget = AsyncEndpoint(endpoints.forget)
    restore_memory = AsyncEndpoint(endpoints.restore_memory)
    list_memories = AsyncEndpoint(endpoints.list_memories)
    iter_memories = AsyncPages(endpoints.list_memories)
    list_trash = AsyncEndpoint(endpoints.list_trash)
    iter_trash = AsyncPages(endpoints.list_trash)
    memory_history = AsyncEndpoint(endpoints.memory_history)
    # ---- recall
    recall = AsyncEndpoint(endpoints.recall)
    feedback = AsyncEndpoint(endpoints.feedback)
    # ---- tasks
    start_task = AsyncEndpoint(endpoints.start_task)
    get_task = AsyncEndpoint(endpoints.get_task)
    list_tasks = AsyncEndpoint(endpoints.list_tasks)
    iter_tasks = AsyncPages(endpoints.list_tasks)
    record_task_events = AsyncEndpoint(endpoints.record_task_events)
    list_task_events = AsyncEndpoint(endpoints.list_task_events)
    redact_task_event = AsyncEndpoint(endpoints.redact_task_event)
    checkpoint_task = AsyncEndpoint(endpoints.checkpoint_task)
    list_checkpoints = AsyncEndpoint(endpoints.list_checkpoints)
    end_task = AsyncEndpoint(endpoints.end_task)
    task_context = AsyncEndpoint(endpoints.task_context)
    task_context_text = AsyncEndpoint(endpoints.task_context_text)
    # ---- graph
    link_memories = AsyncEndpoint(endpoints.link_memories)
    link_memories_batch = AsyncEndpoint(endpoints.link_memories_batch)
    list_links = AsyncEndpoint(endpoints.list_links)
    iter_links = AsyncPages(endpoints.list_links)
    unlink = AsyncEndpoint(endpoints.unlink)
    traverse = AsyncEndpoint(endpoints.traverse)
    # ---- conversations
    create_conversation = AsyncEndpoint(endpoints.create_conversation)
    start_conversation = create_conversation  # the MCP tool's name
    get_conversation = AsyncEndpoint(endpoints.get_conversation)
    list_conversations = AsyncEndpoint(endpoints.list_conversations)
    iter_conversations = AsyncPages(endpoints.list_conversations)
    delete_conversation = AsyncEndpoint(endpoints.delete_conversation)
    append_conversation = AsyncEndpoint(endpoints.append_conversation)
    list_messages = AsyncEndpoint(endpoints.list_messages)
    iter_messages = AsyncPages(endpoints.list_messages)
    # ---- documents
    store_document = AsyncEndpoint(endpoints.store_document)
    create_upload = AsyncEndpoint(endpoints.create_upload)
    get_upload = AsyncEndpoint(endpoints.get_upload)
    query_document = AsyncEndpoint(endpoints.query_document)
    # ---- topics, resume, prime
    list_topics = AsyncEndpoint(endpoints.list_topics)
    lookup_topics = AsyncEndpoint(endpoints.lookup_topics)
    get_topic = AsyncEndpoint(endpoints.get_topic)
    resume = AsyncEndpoint(endpoints.resume)
    resume_text = AsyncEndpoint(endpoints.resume_text)
    prime = AsyncEndpoint(endpoints.prime)
    # ---- consolidation
    consolidate = AsyncEndpoint(endpoints.consolidate)
    list_consolidation_runs = AsyncEndpoint(endpoints.list_consolidation_runs)
    iter_consolidation_runs = AsyncPages(endpoints.list_consolidation_runs)
    get_consolidation_run = AsyncEndpoint(endpoints.get_consolidation_run)
    consolidation_run = get_consolidation_run  # the MCP tool's name
    list_consolidation_actions = AsyncEndpoint(endpoints.list_consolidation_actions)
    iter_consolidation_actions = AsyncPages(endpoints.list_consolidation_actions)
    undo_consolidation = AsyncEndpoint(endpoints.undo_consolidation)
    # ---- extraction
    extract = AsyncEndpoint(endpoints.extract)
    list_extraction_runs = AsyncEndpoint(endpoints.list_extraction_runs)
    iter_extraction_runs = AsyncPages(endpoints.list_extraction_runs)
    get_extraction_run = AsyncEndpoint(endpoints.get_extraction_run)
    extraction_run = get_extraction_run  # the MCP tool's name
    undo_extraction = AsyncEndpoint(endpoints.undo_extraction)
    get_extraction_settings = AsyncEndpoint(endpoints.get_extraction_settings)
    put_extraction_settings = AsyncEndpoint(endpoints.put_extraction_settings)
    # ---- export and import
    create_export = AsyncEndpoint(endpoints.create_export)
    get_export = AsyncEndpoint(endpoints.get_export)
    create_import = AsyncEndpoint(endpoints.create_import)
    get_import = AsyncEndpoint(endpoints.get_import)
    # ---- admin
    health = AsyncEndpoint(endpoints.health)
    stats = AsyncEndpoint(endpoints.stats)
    usage = AsyncEndpoint(endpoints.usage)
    create_key = AsyncEndpoint(endpoints.create_key)
    list_keys = AsyncEndpoint(endpoints.list_keys)
    revoke_key = AsyncEndpoint(endpoints.revoke_key)
    purge_namespace = AsyncEndpoint(endpoints.purge_namespace)

    # ---- composite calls

    async def _wait(
        self,
        fetch: Callable[[], Awaitable[T]],
        settled: Callable[[T], bool],
        what: str,
        timeout: float,
        interval: float,
    ) -> T:
        deadline = time.monotonic() + timeout
        while True:
            current = await fetch()
            if settled(current):
                return current
            if time.monotonic() >= deadline:
                raise WaitTimedOut(f"{what} still {getattr(current, 'status', 'unfinished')} after {timeout} s")
            await asyncio.sleep(interval)

    async def _put_file(
        self, url: str, headers: Mapping[str, str], file: LocalFile, report: Callable[[int], None]
    ) -> None:
        put = _s3_call("PUT", url)
        response = await self._exchange(
            lambda: self._http.build_request("PUT", url, headers=headers, content=async_blocks(file, report)), put
        )
        read(put, response)

    async def upload_document(
        self,
        path: str | os.PathLike[str],
        *,
        content_type: str | None = None,
        namespace: str | None = None,
        kind: Kind | None = None,
        importance: float | None = None,
        tags: Sequence[str] | None = None,
        source: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        chunking: Chunking | None = None,
        progress: ProgressCallback | None = None,
        wait: bool = True,
        wait_timeout: float = 300.0,
        poll_interval: float = 0.5,
    ) -> UploadStatus:
        """`Engram.upload_document`, awaited."""
        file = describe(path, content_type)
        options = {
            "namespace": namespace,
            "kind": kind,
            "importance": importance,
            "tags": tags,
            "source": source,
            "metadata": metadata,
            "chunking": chunking,
        }
        ticket: UploadTicket = await self._send(_upload_call(file, options))
        await self._put_file(ticket.url, ticket.headers, file, _report(progress, ticket.upload_id, file.size))
        if not wait:
            return await self.get_upload(ticket.upload_id)
        return await self.wait_for_upload(
            ticket.upload_id, timeout=wait_timeout, poll_interval=poll_interval, progress=progress
        )

    async def wait_for_upload(
        self,
        upload_id: str,
        *,
        timeout: float = 300.0,
        poll_interval: float = 0.5,
        progress: ProgressCallback | None = None,
    ) -> UploadStatus:
        """`Engram.wait_for_upload`, awaited."""
        return await self._wait(
            lambda: self.get_upload(upload_id),
            lambda status: upload_settled(status, progress),
            f"upload {upload_id}",
            timeout,
            poll_interval,
        )

    async def wait_for_consolidation(self, run_id: str, *, timeout: float = 600.0, poll_interval: float = 1.0) -> Run:
        """`Engram.wait_for_consolidation`, awaited."""
        return await self._wait(
            lambda: self.get_consolidation_run(run_id, limit=1),
            lambda run: run.finished,
            f"consolidation run {run_id}",
            timeout,
            poll_interval,
        )

    async def wait_for_export(self, export_id: str, *, timeout: float = 600.0, poll_interval: float = 1.0) -> ExportJob:
        """`Engram.wait_for_export`, awaited."""
        return await self._wait(
            lambda: self.get_export(export_id), export_settled, f"export {export_id}", timeout, poll_interval
        )

    async def export_to_file(
        self,
        path: str | os.PathLike[str],
        *,
        namespace: str | None = None,
        timeout: float = 600.0,
        poll_interval: float = 1.0,
    ) -> ExportJob:
        """`Engram.export_to_file`, awaited (the file is written with blocking writes of 1 MiB)."""
        created = await self.create_export(namespace=namespace)
        job = await self.wait_for_export(created.id, timeout=timeout, poll_interval=poll_interval)
        url = job.download_url or ""  # set on every ready export
        get = _s3_call("GET", url)
        response = await self._exchange(lambda: self._http.build_request("GET", url), get, stream=True)
        written = 0
        try:
            if not response.is_success:
                await response.aread()
                read(get, response)
            with open(path, "wb") as out:
                async for block in response.aiter_bytes(BLOCK_BYTES):
                    written += out.write(block)
        finally:
            await response.aclose()
        return _download_checked(job, written)

    async def import_file(
        self,
        path: str | os.PathLike[str],
        *,
        namespace: str | None = None,
        id_policy: Literal["keep", "map"] | None = None,
        progress: ProgressCallback | None = None,
        wait: bool = True,
        wait_timeout: float = 600.0,
        poll_interval: float = 0.5,
    ) -> ImportJob:
        """`Engram.import_file`, awaited."""
        file = describe(path, "application/x-ndjson")
        ticket = await self.create_import(file.size, file.sha256, namespace=namespace, id_policy=id_policy)
        await self._put_file(ticket.upload_url, ticket.headers, file, _report(progress, ticket.id, file.size))
        if not wait:
            return await self.get_import(ticket.id)
        return await self._wait(
            lambda: self.get_import(ticket.id),
            lambda job: import_settled(job, progress),
            f"import {ticket.id}",
            wait_timeout,
            poll_interval,
        )
