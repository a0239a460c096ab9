"""What each Lambda function may do: the one table to edit when a function is added.

The route table (layers/engram_http/route_table.py) and EVENT_FUNCTIONS below say which functions
exist; this table says what each needs beyond the baseline (VPC, the database secret, its own logs). A name in
the route table that is missing here gets DEFAULT_PROFILE, so a new HTTP function deploys
with database access only and nothing else until someone grants more here.
"""

from __future__ import annotations

from dataclasses import dataclass

# Queue keys used by `consumes` and the *_send flags (see infra/workers.py).
EMBED_QUEUE = "embed-jobs"
CONSOLIDATE_QUEUE = "consolidate-jobs"
EXTRACT_QUEUE = "extract-jobs"  # windows of conversation turns for the extraction worker
UPLOAD_EVENTS_QUEUE = "upload-events"  # S3 ObjectCreated notifications for the uploads bucket
EXPORT_QUEUE = "export-jobs"
IMPORT_EVENTS_QUEUE = "import-events"  # S3 ObjectCreated notifications under imports/
EXPORTS_PREFIX = "exports/"  # export files, written by the export worker, downloaded through presigned GETs
IMPORTS_PREFIX = "imports/"  # import files, uploaded through presigned PUTs


@dataclass(frozen=True)
class FunctionProfile:
    timeout_s: int = 29  # HTTP API waits 30 s for an integration; stay below it.
    embed_send: bool = False  # may enqueue embedding jobs
    consolidate_send: bool = False  # may enqueue consolidation jobs
    extract_send: bool = False  # may enqueue extraction jobs (conversation appends, the sweep)
    bedrock_embed: bool = False  # bedrock:InvokeModel on the embedding model only
    bedrock_llm: bool = False  # bedrock:InvokeModel on the configured Claude model (when llm_level != off)
    bedrock_rerank: bool = False  # bedrock:Rerank, InvokeModel on the rerank model (when rerank_model is set)
    uploads_read: bool = False  # s3:GetObject under uploads/
    uploads_write: bool = False  # s3:PutObject under uploads/ (signs presigned PUT URLs)
    uploads_delete: bool = False  # s3:DeleteObject under uploads/ (drops rejected or ingested objects)
    consumes: str | None = None  # SQS queue key whose messages invoke it (partial batch responses)
    batch_size: int = 10  # SQS messages per invocation when `consumes` is set
    # ObjectCreated under this prefix of the uploads bucket is sent to the `consumes` queue
    # (S3 -> SQS -> Lambda: retries, a DLQ and partial batch responses, unlike a direct invoke).
    s3_trigger_prefix: str | None = None
    scheduled: bool = False  # invoked by the EventBridge Scheduler consolidation schedule
    export_send: bool = False  # may enqueue export jobs
    # may send an upload's ObjectCreated notification again (an object that arrived, never ingested)
    upload_events_send: bool = False
    # (S3 action, key prefix) on the uploads bucket beyond uploads/: exports and imports
    object_access: tuple[tuple[str, str], ...] = ()
    temp_mb: int = 512  # /tmp (ephemeral storage); Lambda bills above 512 MB
    # In the VPC with the database secret; False: outside the VPC, no secret (static files only).
    database: bool = True
    # Seconds it waits for a resuming database; None: a route's (within API Gateway's 30 s) or, for a
    # queue or schedule worker, a long one (infra/functions.py).
    db_wait_s: int | None = None
    # Database connections one warm container holds (infra/connections.py sums them against max_connections).
    connections: int = 1
    # Reads that tolerate replica lag (counts, an export's snapshot) go to the cluster's reader endpoint
    # where the environment has a reader: one more connection per warm container, on the reader.
    reads_on_reader: bool = False
    # Lambda SnapStart where the environment turns it on (`snap_start` in cdk.json): for a function
    # whose import is slow enough to be worth a snapshot's cost. Its handler must reseed `random` at
    # its first invocation (engram.core.snapstart), and its temp_mb stay within SnapStart's 512 MB.
    snap_start: bool = False
    description: str = ""

    @property
    def invoked_async(self) -> bool:
        """Invoked with InvocationType=Event (the scheduler's target): Lambda retries a failure twice,
        then drops the event unless an on-failure destination takes it (infra/workers.py gives one)."""
        return self.scheduled


DEFAULT_PROFILE = FunctionProfile(description="Engram HTTP function")

# The functions no HTTP route reaches (the route table names the others). What invokes each one (a
# queue, an S3 notification, a schedule, a deploy) is its profile below; infra/workers.py wires it.
# The CDK app builds one function per entry here and per function of the route table.
EVENT_FUNCTIONS: tuple[str, ...] = (
    "authorizer",  # API Gateway's Lambda authorizer: API key -> tenant and scopes
    "embed_worker",  # SQS embed-jobs: fills chunk vectors
    "migrate",  # CloudFormation custom resource on deploy; operator invocations
    "document_ingest",  # S3 ObjectCreated (through SQS): ingests uploaded documents
    "consolidation_dispatcher",  # EventBridge Scheduler: consolidation per active namespace; extraction sweep
    "consolidation_worker",  # SQS consolidate-jobs: runs a consolidation cycle, continues if needed
    "extraction_worker",  # SQS extract-jobs: derives memories and the summary from a window of turns
    "export_worker",  # SQS export-jobs: writes a tenant's export file to S3
    "import_worker",  # S3 ObjectCreated under imports/ (through SQS): imports an export file
)

PROFILES: dict[str, FunctionProfile] = {
    "authorizer": FunctionProfile(timeout_s=10, description="API key authorizer for the HTTP API"),
    "admin": FunctionProfile(reads_on_reader=True, description="health, OpenAPI, stats, tenant and key management"),
    "memories": FunctionProfile(embed_send=True, description="memory CRUD; enqueues embedding jobs"),
    "recall": FunctionProfile(
        bedrock_embed=True,
        bedrock_llm=True,
        bedrock_rerank=True,
        description="hybrid recall; embeds the query, rewrite_query's LLM call, rerank",
    ),
    "graph": FunctionProfile(description="links between memories, traversal and history"),
    # Erasure deletes the S3 objects that may hold erased data: upload leftovers, export files, and
    # (a tenant's erasure) its import files.
    "erasure": FunctionProfile(
        object_access=(
            ("s3:DeleteObject", "uploads/"),
            ("s3:DeleteObject", EXPORTS_PREFIX),
            ("s3:DeleteObject", IMPORTS_PREFIX),
        ),
        description="erasure of a memory, a subject or the tenant, from every copy",
    ),
    # The memory console's static files: it reads nothing but its own folder, so no VPC and no secret.
    "console": FunctionProfile(timeout_s=10, database=False, description="the memory console's static files"),
    # Conversations and task runs (a task's events are a conversation's messages): appends queue windows and
    # extraction; a task's context embeds its query (recall); a redaction erases what was learned from the
    # turn, with the S3 objects such an erasure retires.
    "conversations": FunctionProfile(
        embed_send=True,
        extract_send=True,
        bedrock_embed=True,
        object_access=(
            ("s3:DeleteObject", "uploads/"),
            ("s3:DeleteObject", EXPORTS_PREFIX),
        ),
        description="verbatim conversations and task runs; queues extraction of new turns",
    ),
    # POST /v1/extract asks the model in the request (up to ENGRAM_LLM_TIMEOUT_S, inside the 29 s).
    "extraction": FunctionProfile(
        embed_send=True, bedrock_embed=True, bedrock_llm=True, description="derived memories: extract, runs, settings"
    ),
    # GET of an upload past its expiry asks S3 whether the object arrived (HEAD needs s3:GetObject):
    # only a missing one fails it as expired; one that is there gets its notification sent again.
    "documents": FunctionProfile(
        embed_send=True,
        uploads_read=True,
        uploads_write=True,
        upload_events_send=True,
        bedrock_llm=True,
        description="documents and query-document",
    ),
    # Prime embeds the task (recall); topic names may use the LLM when ENGRAM_LLM_LEVEL allows.
    "topics": FunctionProfile(bedrock_embed=True, bedrock_llm=True, description="topic tree, resume and prime"),
    # Remote MCP: its tools call the same services as the routes above, so it may do what they do
    # together (enqueue embeddings and consolidation runs, embed queries, ask Claude) and no more.
    "mcp": FunctionProfile(
        embed_send=True,
        consolidate_send=True,
        bedrock_embed=True,
        bedrock_llm=True,
        # erase_memory deletes the export files (and upload leftovers) that may hold the erased memory.
        object_access=(("s3:DeleteObject", "uploads/"), ("s3:DeleteObject", EXPORTS_PREFIX)),
        # Its cold start is ~3x a route function's, most of it importing the mcp SDK (docs/performance.md, Speed).
        snap_start=True,
        description="remote MCP endpoint: the memory tools over streamable HTTP",
    ),
    # OAuth for MCP connectors: its state (clients, pending authorizations, grants, tokens) is in the
    # database and it needs nothing else. Fetching a client's metadata document (a client id that is an
    # https URL) needs a route out of the VPC (nat_gateways > 0); without one, clients register (DCR).
    "oauth": FunctionProfile(description="OAuth for MCP connectors: metadata, registration, authorize, tokens, grants"),
    "document_ingest": FunctionProfile(
        timeout_s=300,
        embed_send=True,
        uploads_read=True,
        uploads_delete=True,
        consumes=UPLOAD_EVENTS_QUEUE,
        batch_size=1,  # one document per invocation: a large one may need the whole timeout
        s3_trigger_prefix="uploads/",
        description="ingests large documents uploaded to S3",
    ),
    "embed_worker": FunctionProfile(
        timeout_s=120, bedrock_embed=True, consumes=EMBED_QUEUE, description="fills chunk embeddings"
    ),
    "migrate": FunctionProfile(
        timeout_s=600,
        # A deploy that finds the cluster paused for days must not roll back for a slow resume (~30 s
        # after a day paused; more if RDS is patching it): Settings' longest wait.
        db_wait_s=300,
        description="applies SQL migrations on deploy; creates tenants on direct invoke",
    ),
    # The routes of POST /v1/consolidate and the runs: the work goes through the queue.
    "consolidation": FunctionProfile(consolidate_send=True, description="consolidation runs: start, inspect, undo"),
    # Exports and imports: the route function queues exports and signs the download and upload URLs.
    "portability": FunctionProfile(
        export_send=True,
        object_access=(("s3:GetObject", EXPORTS_PREFIX), ("s3:PutObject", IMPORTS_PREFIX)),
        description="exports and imports: start, inspect, presigned download and upload",
    ),
    "export_worker": FunctionProfile(
        timeout_s=900,
        consumes=EXPORT_QUEUE,
        batch_size=1,  # one tenant's export per invocation
        # PutObject covers the multipart upload boto3 switches to past 8 MiB; Abort cleans up after a failure.
        object_access=(("s3:PutObject", EXPORTS_PREFIX), ("s3:AbortMultipartUpload", EXPORTS_PREFIX)),
        temp_mb=10240,  # the file is written to /tmp before it is uploaded
        reads_on_reader=True,  # its snapshot, once the reader has replayed the export's claim
        description="writes a tenant's export file to S3",
    ),
    "import_worker": FunctionProfile(
        timeout_s=900,
        embed_send=True,
        consumes=IMPORT_EVENTS_QUEUE,
        batch_size=1,  # one file per invocation: it is imported in one transaction
        s3_trigger_prefix=IMPORTS_PREFIX,
        object_access=(("s3:GetObject", IMPORTS_PREFIX), ("s3:DeleteObject", IMPORTS_PREFIX)),
        temp_mb=1024,  # the file (ENGRAM_IMPORT_MAX_BYTES, 256 MiB) is read from /tmp twice
        description="imports an export file uploaded to S3, all or nothing",
    ),
    "consolidation_dispatcher": FunctionProfile(
        timeout_s=120,
        consolidate_send=True,
        extract_send=True,  # it also sweeps quiet conversations with unread turns to extraction
        scheduled=True,
        # It also empties the trash past its retention (engram.erasure): export files that held those memories go.
        object_access=(("s3:DeleteObject", "uploads/"), ("s3:DeleteObject", EXPORTS_PREFIX)),
        description="fans consolidation out per namespace; erases trash past its retention",
    ),
    "extraction_worker": FunctionProfile(
        # One window of turns per message: a model call (ENGRAM_LLM_TIMEOUT_S, retried) and one
        # transaction; a long backlog continues in a new message (it may send to its own queue).
        timeout_s=300,
        consumes=EXTRACT_QUEUE,
        extract_send=True,
        batch_size=1,
        embed_send=True,
        bedrock_embed=True,
        bedrock_llm=True,
        description="derives memories and the summary from one window of a conversation's turns",
    ),
    "consolidation_worker": FunctionProfile(
        # Lambda's maximum; the cycle's time budget (ENGRAM_CONSOLIDATION_TIME_BUDGET_S, 600 s)
        # leaves room for the batch that is running when it runs out. Longer runs continue in a
        # new message (the worker may send to its own queue).
        timeout_s=900,
        consumes=CONSOLIDATE_QUEUE,
        consolidate_send=True,
        batch_size=1,  # one namespace per invocation: bounded, resumable runs
        connections=2,  # the request connection, and the run's own one that holds its session lock
        embed_send=True,
        bedrock_embed=True,
        bedrock_llm=True,
        description="consolidates one tenant namespace",
    ),
}


def profile_for(function: str) -> FunctionProfile:
    return PROFILES.get(function, DEFAULT_PROFILE)
