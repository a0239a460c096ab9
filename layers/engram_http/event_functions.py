"""The Lambda functions no HTTP route reaches, next to the route table that lists those it does.

What invokes each one (a queue, an S3 notification, a schedule, a deploy) is its profile in
infra/profiles.py; infra/workers.py wires it. The CDK app builds one function per entry here and
per function of the route table.
"""

from __future__ import annotations

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
