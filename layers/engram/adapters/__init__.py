"""Clients of the world outside the database: the SQS queue, S3, the LLM, the embedding models."""
