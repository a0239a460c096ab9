"""Documents: large text in size tiers, inline or through S3 uploads, and query-document."""
