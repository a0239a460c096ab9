"""The CDK app of Engram Serverless: one stack per environment, built from small constructs."""
