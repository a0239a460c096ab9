"""SQS export-jobs -> write one export file to S3 (batch size 1); engram.portability.service does the work."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel
from pydantic import BaseModel, Json

from engram.portability.service import run_export

logger = Logger()


class ExportJob(BaseModel):
    tenant_id: UUID
    export_id: UUID


class ExportJobRecord(SqsRecordModel):
    """An export-jobs message: the SQS record, its body parsed as an ExportJob (a bad body fails the record)."""

    body: Json[ExportJob]


processor = BatchProcessor(event_type=EventType.SQS, model=ExportJobRecord)


def export_record(record: ExportJobRecord) -> str:
    return run_export(record.body.tenant_id, record.body.export_id)


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=export_record, processor=processor, context=context)
