"""Local stack for development and tests: embedded PostgreSQL, SQS/S3 stand-ins, the dev server.

Never shipped to Lambda.
"""
