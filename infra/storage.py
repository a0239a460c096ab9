"""S3: the uploads bucket (large documents arrive here through presigned PUTs) and a log bucket.

Both block public access, require TLS and use S3-managed encryption. Uploads are transient:
the document-ingest function copies what it needs into Postgres, so objects expire.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.config import EnvConfig
from infra.nag import acknowledge, main_resource

UPLOADS_PREFIX = "uploads/"
EXPORTS_EXPIRE_DAYS = 7  # an export is a download, not a backup store: take it within a week


class Storage(Construct):
    def __init__(self, scope: Construct, id: str, *, config: EnvConfig) -> None:
        super().__init__(scope, id)
        removal = RemovalPolicy.RETAIN if config.retain_data else RemovalPolicy.DESTROY
        # In dev, `make destroy` must leave nothing behind, so buckets are emptied on delete.
        auto_delete = not config.retain_data

        self.logs_bucket = s3.Bucket(
            self,
            "LogsBucket",
            encryption=s3.BucketEncryption.S3_MANAGED,  # S3 server access logging cannot write to SSE-KMS
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(config.access_logs_expire_days))],
            removal_policy=removal,
            auto_delete_objects=auto_delete,
        )
        acknowledge(
            main_resource(self.logs_bucket),
            "AwsSolutions-S1",
            "This is the access-log and flow-log bucket itself; logging it into itself would loop.",
        )

        self.uploads_bucket = s3.Bucket(
            self,
            "UploadsBucket",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            server_access_logs_bucket=self.logs_bucket,
            server_access_logs_prefix="s3-access/uploads/",
            lifecycle_rules=[
                s3.LifecycleRule(
                    id="expire-uploads",
                    prefix=UPLOADS_PREFIX,
                    expiration=Duration.days(config.uploads_expire_days),
                ),
                s3.LifecycleRule(id="expire-exports", prefix="exports/", expiration=Duration.days(EXPORTS_EXPIRE_DAYS)),
                s3.LifecycleRule(
                    id="expire-imports", prefix="imports/", expiration=Duration.days(config.uploads_expire_days)
                ),
                s3.LifecycleRule(id="abort-multipart", abort_incomplete_multipart_upload_after=Duration.days(1)),
            ],
            removal_policy=removal,
            auto_delete_objects=auto_delete,
        )

    def allow_browser_uploads(self, origins: Sequence[str]) -> None:
        """Let pages on exactly these origins PUT to presigned URLs and read S3's answer. The
        signature is the authorization; CORS only concerns browsers. No origins, no rule."""
        if origins:
            self.uploads_bucket.add_cors_rule(
                allowed_methods=[s3.HttpMethods.PUT],
                allowed_origins=list(origins),
                allowed_headers=["content-type", "x-amz-checksum-sha256"],
                max_age=3600,
            )
