-- A login role per duty, so no function but migrate logs in as the schema owner (the master user,
-- rds_superuser on Aurora). engram_api serves the API (route functions, the authorizer); engram_worker
-- runs the queue and schedule workers. Each is NOINHERIT and owns nothing: it holds no privilege of its
-- own, only the right to SET ROLE to the request roles. A session runs as engram_app (engram.core.db);
-- a statement that undoes that (RESET ROLE, SET ROLE NONE) leaves a role that can read no table, not
-- the owner that bypasses row-level security. They start NOLOGIN: the migrate function gives each its
-- password from its own secret in Secrets Manager (engram.schema.logins).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'engram_api') THEN
    CREATE ROLE engram_api NOLOGIN NOINHERIT;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'engram_worker') THEN
    CREATE ROLE engram_worker NOLOGIN NOINHERIT;
  END IF;
END
$$;
GRANT engram_app TO engram_api WITH INHERIT FALSE, SET TRUE;
GRANT engram_confined TO engram_api WITH INHERIT FALSE, SET TRUE;  -- OAuth grants confined to namespaces
GRANT engram_app TO engram_worker WITH INHERIT FALSE, SET TRUE;
