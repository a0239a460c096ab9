// Generated from docs/openapi.json by scripts/openapi-types.mjs (openapi-typescript); do not edit.
// `make openapi` writes it again; the gate fails while it differs from the document.

export type paths = {
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Authorization server metadata (RFC 8414; no auth) */
        get: operations["authorization_server__well_known_oauth_authorization_server_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Protected resource metadata of /mcp (RFC 9728; no auth) */
        get: operations["protected_resource__well_known_oauth_protected_resource_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Protected resource metadata of /mcp at its path-suffixed location (RFC 9728; no auth) */
        get: operations["protected_resource_mcp__well_known_oauth_protected_resource_mcp_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/openid-configuration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The authorization server metadata again, for clients that look here (no auth) */
        get: operations["openid_configuration__well_known_openid_configuration_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Start an authorization (code + PKCE S256): redirects to the consent page (no auth) */
        get: operations["authorize_oauth_authorize_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register a public client (RFC 7591 dynamic client registration; no auth) */
        post: operations["register_oauth_register_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/requests/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A pending authorization, as the consent page shows it (no auth: the id is unguessable) */
        get: operations["pending_oauth_requests__request_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/requests/{request_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Grant the client the scopes and namespaces chosen (signed in with an API key): a one-time code */
        post: operations["approve_oauth_requests__request_id__approve_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/requests/{request_id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Decline a pending authorization: back to the client with error=access_denied (no auth) */
        post: operations["deny_oauth_requests__request_id__deny_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke an access or refresh token (RFC 7009, form-encoded; no auth): 200 for any token */
        post: operations["revoke_oauth_revoke_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange a code (PKCE) or a refresh token for tokens (form-encoded, public clients; no auth) */
        post: operations["token_oauth_token_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/consolidate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a consolidation run (or a dry run's plan) */
        post: operations["consolidate_v1_consolidate_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/consolidation-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Runs, newest first, with a cursor */
        get: operations["list_runs_v1_consolidation_runs_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/consolidation-runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run: status, counts per step, LLM calls and tokens, and its actions (paginated) */
        get: operations["get_run_v1_consolidation_runs__run_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/consolidation-runs/{run_id}/undo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Put back everything the run changed */
        post: operations["undo_run_v1_consolidation_runs__run_id__undo_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List conversations, newest first */
        get: operations["list_conversations_v1_conversations_get"];
        put?: never;
        /** Start a conversation */
        post: operations["create_conversation_v1_conversations_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations/{conversation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one conversation */
        get: operations["get_conversation_v1_conversations__conversation_id__get"];
        put?: never;
        post?: never;
        /** Delete a conversation, its messages and chunks (hard delete) */
        delete: operations["delete_conversation_v1_conversations__conversation_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/conversations/{conversation_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Messages in sequence order, from_seq..to_seq inclusive */
        get: operations["list_messages_v1_conversations__conversation_id__messages_get"];
        put?: never;
        /** Append up to 200 messages atomically, numbered in order */
        post: operations["append_messages_v1_conversations__conversation_id__messages_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Store a document inline (up to 5 MiB; larger: POST /v1/documents/uploads) */
        post: operations["create_document_v1_documents_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Get a presigned S3 PUT for a document up to 50 MiB; its arrival ingests it */
        post: operations["create_upload_v1_documents_uploads_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents/uploads/{upload_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Upload status: pending, ready (memory_id) or failed (reason) */
        get: operations["get_upload_v1_documents_uploads__upload_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/erasures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Erase everything a selector covers: memories, documents, conversations (admin scope) */
        post: operations["create_erasure_v1_erasures_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/erasures/{erasure_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An erasure's audit record (admin scope) */
        get: operations["get_erasure_v1_erasures__erasure_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Export this tenant's data (or one namespace) as JSONL: a job, then a presigned download */
        post: operations["create_export_v1_exports_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/exports/{export_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export status, counts, and once ready a presigned GET of the file (expires; GET again for a new one) */
        get: operations["get_export_v1_exports__export_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/extract": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Derive memories from any text or a range of a conversation's turns now (or only say what it would do) */
        post: operations["extract_v1_extract_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/extraction/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Extraction runs, newest first */
        get: operations["list_runs_v1_extraction_runs_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/extraction/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One extraction run: its actions, each with the turns it came from */
        get: operations["get_run_v1_extraction_runs__run_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/extraction/runs/{run_id}/undo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Undo an extraction run: its memories to the trash, updates and invalidations reversed */
        post: operations["undo_run_v1_extraction_runs__run_id__undo_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/extraction/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What a namespace extracts */
        get: operations["get_settings_v1_extraction_settings_get"];
        /** Turn extraction on or off for a namespace, choose its kinds, add instructions */
        put: operations["put_settings_v1_extraction_settings_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Say which results of a recall helped: their ranking weight moves, bounded, decaying back */
        post: operations["give_feedback_v1_feedback_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This tenant's OAuth grants (connected apps; admin scope) */
        get: operations["grants_v1_grants_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/grants/{grant_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a grant: its tokens stop at once (admin scope) */
        delete: operations["revoke_grant_v1_grants__grant_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness and database reachability (no auth) */
        get: operations["health_v1_health_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness only: the function answers, the database is not touched (no auth) */
        get: operations["liveness_v1_health_live_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Get a presigned S3 PUT for an export file; its arrival imports it, all or nothing */
        post: operations["create_import_v1_imports_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/imports/{import_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Import status and report: imported, deduplicated, and every refused line with its reason */
        get: operations["get_import_v1_imports__import_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This tenant's keys, without secrets (admin scope; an API key, not an OAuth token) */
        get: operations["list_keys_v1_keys_get"];
        put?: never;
        /** Issue an API key for this tenant (admin scope; an API key, not an OAuth token); shown once */
        post: operations["create_key_v1_keys_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key (admin scope; an API key, not an OAuth token) */
        delete: operations["revoke_key_v1_keys__key_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List links, newest first, with a cursor */
        get: operations["list_links_v1_links_get"];
        put?: never;
        /** Link two memories (typed, directed, time-bounded) */
        post: operations["create_link_v1_links_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/links/{link_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End a link now (it stays as history) */
        delete: operations["delete_link_v1_links__link_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/links/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create up to 100 links, per-item results */
        post: operations["create_link_batch_v1_links_batch_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List memories, newest first, with a cursor */
        get: operations["list_memories_v1_memories_get"];
        put?: never;
        /** Store one memory */
        post: operations["create_memory_v1_memories_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one memory (with its evidence turns) */
        get: operations["get_memory_v1_memories__memory_id__get"];
        put?: never;
        post?: never;
        /** Move a memory to the trash */
        delete: operations["delete_memory_v1_memories__memory_id__delete"];
        options?: never;
        head?: never;
        /** Change fields; new content is re-chunked and re-embedded */
        patch: operations["patch_memory_v1_memories__memory_id__patch"];
        trace?: never;
    };
    "/v1/memories/{memory_id}/erase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Erase a memory for good (active or in the trash) from every copy; idempotent */
        post: operations["erase_memory_v1_memories__memory_id__erase_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every version of a memory, and what it replaced and what replaced it */
        get: operations["history_v1_memories__memory_id__history_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Memories reachable through links, breadth first, each with its path */
        get: operations["traverse_v1_memories__memory_id__links_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ask a question of one memory or document: ranked spans within a budget, and an answer */
        post: operations["query_document_v1_memories__memory_id__query_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Bring a memory back from the trash */
        post: operations["restore_memory_v1_memories__memory_id__restore_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Store up to 100 memories, per-item results */
        post: operations["create_batch_v1_memories_batch_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/namespaces/{namespace}/purge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Hard-delete every memory, conversation, message and chunk in a namespace (admin scope) */
        post: operations["purge_namespace_v1_namespaces__namespace__purge_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This API's OpenAPI 3.1 document (no auth) */
        get: operations["openapi_v1_openapi_json_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/prime": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Memories relevant to a task and different from each other */
        post: operations["prime_v1_prime_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/recall": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Find memories by meaning and keyword */
        post: operations["recall_memories_v1_recall_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A briefing: core memories, recent changes, topics, triggers */
        get: operations["get_resume_v1_resume_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Counts for this tenant, by namespace */
        get: operations["tenant_stats_v1_stats_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Task runs, newest first */
        get: operations["list_tasks_v1_tasks_get"];
        put?: never;
        /** Start a task run (and its event ledger) */
        post: operations["start_task_v1_tasks_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{task_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One task run */
        get: operations["get_task_v1_tasks__task_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{task_id}/checkpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The task's checkpoints, newest first */
        get: operations["list_checkpoints_v1_tasks__task_id__checkpoints_get"];
        put?: never;
        /** Checkpoint the task: summary, completed and pending steps, decisions, blockers, artifacts */
        post: operations["create_checkpoint_v1_tasks__task_id__checkpoints_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{task_id}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The context to resume the task with, within a hard character budget split in stated shares */
        post: operations["task_context_v1_tasks__task_id__context_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{task_id}/end": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the task: done, failed or cancelled */
        post: operations["end_task_v1_tasks__task_id__end_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{task_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Events in order, from_seq..to_seq inclusive */
        get: operations["list_events_v1_tasks__task_id__events_get"];
        put?: never;
        /** Append up to 200 events (user, assistant, tool, agent, system), in order, all or none */
        post: operations["append_events_v1_tasks__task_id__events_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{task_id}/events/{seq}/redact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Redact one event: its content is gone from every copy, its place in the ledger stays */
        post: operations["redact_event_v1_tasks__task_id__events__seq__redact_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tenant/erase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Erase this tenant: every row, key and object; cannot be undone (admin scope; API key only) */
        post: operations["erase_tenant_v1_tenant_erase_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/topics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The topic tree of a namespace (rebuilt by consolidation) */
        get: operations["list_topics_v1_topics_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/topics/{topic_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A topic: its path, children and first members */
        get: operations["get_topic_v1_topics__topic_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/topics/lookup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Topics' names and member memories, a page each */
        post: operations["lookup_topics_v1_topics_lookup_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/trash": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Deleted memories that can still be restored */
        get: operations["list_trash_v1_trash_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This tenant's LLM calls and tokens by day, component and model (admin scope) */
        get: operations["tenant_usage_v1_usage_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        /** Action */
        Action: {
            /**
             * Action
             * @description decay, promote, gate_approve, gate_reject, demote, merge, supersede, contradicts, evict, drop_decayed, distill (distill_refused and distill_declined: not applied, with the reason), topic_tree, or *_candidate in plans
             */
            action: string;
            /**
             * Applied
             * @description False in a dry run's plan and for LLM candidates not decided
             */
            applied: boolean;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Details */
            details: {
                [key: string]: unknown;
            };
            /** Memory Ids */
            memory_ids: string[];
            /** Reason */
            reason: string;
            /** Seq */
            seq: number;
            /** Step */
            step: string;
        };
        /** ActionPage */
        ActionPage: {
            /** Items */
            items: components["schemas"]["Action"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /** ApiKeyInfo */
        ApiKeyInfo: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            /**
             * Prefix
             * @description egk_<prefix>_...: recognise a key without storing it
             */
            prefix: string;
            /** Revoked At */
            revoked_at: string | null;
            /** Scopes */
            scopes: string[];
        };
        /** AppendResult */
        AppendResult: {
            /**
             * Conversation Id
             * Format: uuid
             */
            conversation_id: string;
            /** Count */
            count: number;
            /** Messages */
            messages: components["schemas"]["Message"][];
            /**
             * Replayed
             * @description True when this idempotency key was seen before; nothing was written
             */
            replayed: boolean;
            /** Seq From */
            seq_from: number;
            /** Seq To */
            seq_to: number;
        };
        /** Approval */
        Approval: {
            /**
             * Namespaces
             * @description Confine the grant to these namespaces; null: every namespace
             */
            namespaces?: string[] | null;
            /**
             * Scopes
             * @description Within the request's and the key's scopes; admin only without namespaces
             */
            scopes: ("read" | "write" | "admin")[];
        };
        /** Artifact */
        Artifact: {
            /** Name */
            name: string;
            /** Note */
            note?: string | null;
            /**
             * Uri
             * @description Where it is: a path, a URL, a commit
             */
            uri?: string | null;
        };
        /** BatchItemResult */
        BatchItemResult: {
            /** Error */
            error?: {
                [key: string]: unknown;
            } | null;
            /** Index */
            index: number;
            /** Memory Id */
            memory_id?: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "created" | "deduplicated" | "error";
            /**
             * Superseded
             * @description With conflict_key: the memories it replaced
             */
            superseded?: string[];
        };
        /** BatchResult */
        BatchResult: {
            /** Created */
            created: number;
            /** Deduplicated */
            deduplicated: number;
            /** Failed */
            failed: number;
            /** Results */
            results: components["schemas"]["BatchItemResult"][];
        };
        /** ChainLink */
        ChainLink: {
            link: components["schemas"]["Link"];
            memory: components["schemas"]["MemorySummary"];
        };
        /** Checkpoint */
        Checkpoint: {
            /** Artifacts */
            artifacts: {
                [key: string]: unknown;
            }[];
            /** Blockers */
            blockers: string[];
            /** Completed */
            completed: string[];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Decisions */
            decisions: string[];
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Pending */
            pending: string[];
            /** Seq To */
            seq_to: number;
            /** Summary */
            summary: string;
            /**
             * Task Id
             * Format: uuid
             */
            task_id: string;
        };
        /** CheckpointCreate */
        CheckpointCreate: {
            /** Artifacts */
            artifacts?: components["schemas"]["Artifact"][];
            /** Blockers */
            blockers?: string[];
            /** Completed */
            completed?: string[];
            /** Decisions */
            decisions?: string[];
            /** Pending */
            pending?: string[];
            /**
             * Seq To
             * @description The last event it covers; default the ledger's last event
             */
            seq_to?: number | null;
            /**
             * Summary
             * @description Where the task stands
             */
            summary: string;
        };
        /** Citation */
        Citation: {
            /** End */
            end: number;
            /** N */
            n: number;
            /** Start */
            start: number;
        };
        /**
         * ClientRegistration
         * @description RFC 7591's request, public clients only: the members the server uses, each capped. Any other
         *     member is ignored and not kept (RFC 7591 §2: a server ignores metadata it does not understand).
         */
        ClientRegistration: {
            /**
             * Client Name
             * @default null
             */
            client_name: string | null;
            /**
             * Grant Types
             * @default null
             */
            grant_types: ("authorization_code" | "refresh_token")[] | null;
            /**
             * Redirect Uris
             * @description Each https, http on a loopback host (127.0.0.1, localhost, [::1]: native apps), or an app's own scheme (com.example.app:/cb); absolute, with a host and port that parse, no fragment, no user name or password
             */
            redirect_uris: string[];
            /**
             * Response Types
             * @default null
             */
            response_types: "code"[] | null;
            /**
             * Scope
             * @default null
             */
            scope: string | null;
            /**
             * Token Endpoint Auth Method
             * @description Public clients only
             * @default null
             */
            token_endpoint_auth_method: "none" | null;
        };
        /**
         * CompactHit
         * @description A result in the compact form: the evidence once (a conversation window's turns are the lines of
         *     its text, so its messages are not repeated), with what identifies and ranks it.
         */
        CompactHit: {
            /**
             * Conflicts
             * @description Only when there are some
             */
            conflicts?: components["schemas"]["GraphNeighbour"][] | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Critical
             * @description A critical fact, returned ahead of the ranked results
             * @default false
             */
            critical: boolean;
            /**
             * Evidence
             * @description A memory derived from conversations: its turns, verbatim (inside budget_chars)
             */
            evidence?: components["schemas"]["EvidenceTurn"][] | null;
            explain?: components["schemas"]["ScoreParts"] | null;
            /**
             * Id
             * Format: uuid
             * @description The memory id; for a conversation window, the conversation id
             */
            id: string;
            /**
             * Linked
             * @description With `expand`: the linked memories
             */
            linked?: components["schemas"]["GraphNeighbour"][] | null;
            /** Namespace */
            namespace: string;
            /** Score */
            score: number;
            /**
             * Seq From
             * @description Conversation windows: first message seq
             */
            seq_from?: number | null;
            /**
             * Seq To
             * @description Conversation windows: last message seq
             */
            seq_to?: number | null;
            /** Text */
            text: string;
            /**
             * Truncated
             * @description Cut to fit budget_chars
             * @default false
             */
            truncated: boolean;
            /**
             * Type
             * @enum {string}
             */
            type: "memory" | "conversation";
        };
        /** ConsolidateRequest */
        ConsolidateRequest: {
            /**
             * Dry Run
             * @description Plan only: list every action with its reason; change nothing
             * @default false
             */
            dry_run: boolean;
            /**
             * Namespace
             * @default default
             */
            namespace: string;
            /**
             * Steps
             * @description Steps to run, in the cycle's order (default: all)
             */
            steps?: ("decay" | "promote" | "gate" | "demote" | "dedupe" | "reconcile" | "buffer_cap" | "drop_decayed" | "distill" | "topics")[] | null;
        };
        /** ContextEvent */
        ContextEvent: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Redacted */
            redacted: boolean;
            /** Role */
            role: string;
            /** Seq */
            seq: number;
            /** Text */
            text: string;
            /** Truncated */
            truncated: boolean;
        };
        /** ContextMemory */
        ContextMemory: {
            /** Critical */
            critical: boolean;
            /**
             * Memory Id
             * Format: uuid
             */
            memory_id: string;
            /** Score */
            score: number;
            /** Text */
            text: string;
            /** Truncated */
            truncated: boolean;
        };
        /** ContextNeighbour */
        ContextNeighbour: {
            /**
             * Memory Id
             * Format: uuid
             */
            memory_id: string;
            /**
             * Of
             * Format: uuid
             * @description The memory it is linked to
             */
            of: string;
            /** Relation */
            relation: string;
            /** Text */
            text: string;
            /** Truncated */
            truncated: boolean;
        };
        /** ContextSection */
        ContextSection: {
            /**
             * Budget Chars
             * @description Its share of budget_chars, with what earlier sections left
             */
            budget_chars: number;
            /**
             * Omitted
             * @description Items that did not fit
             */
            omitted: number;
            /** Used Chars */
            used_chars: number;
        };
        /**
         * ContextShares
         * @description How budget_chars is split between the sections; what one leaves unused goes to the next.
         */
        ContextShares: {
            /**
             * Checkpoint
             * @default 0.3
             */
            checkpoint: number;
            /**
             * Events
             * @default 0.3
             */
            events: number;
            /**
             * Memories
             * @default 0.3
             */
            memories: number;
            /**
             * Neighbours
             * @default 0.1
             */
            neighbours: number;
        };
        /** Conversation */
        Conversation: {
            /** Agent Id */
            agent_id: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Extracted Seq
             * @description Turns up to this sequence number have been read by extraction
             * @default 0
             */
            extracted_seq: number;
            /**
             * Extraction
             * @description GET only: 'on', or 'off: <why>' (no LLM configured, turned off) when nothing is derived from it
             */
            extraction?: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Last Message At */
            last_message_at: string | null;
            /** Message Count */
            message_count: number;
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Namespace */
            namespace: string;
            /**
             * Summary
             * @description The rolling summary extraction keeps (null until a first extraction job ran)
             */
            summary?: string | null;
            /** Summary Updated At */
            summary_updated_at?: string | null;
            /** Tags */
            tags: string[];
            /** Title */
            title: string | null;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** ConversationCreate */
        ConversationCreate: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * Metadata
             * @description A JSON object: <= 64 keys, nested <= 16 levels, <= 64 KiB as JSON
             */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Namespace
             * @default default
             */
            namespace: string;
            /** Tags */
            tags?: string[];
            /** Title */
            title?: string | null;
        };
        /** ConversationPage */
        ConversationPage: {
            /** Items */
            items: components["schemas"]["Conversation"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /** DeletedConversation */
        DeletedConversation: {
            /** Chunks */
            chunks: number;
            /**
             * Deleted
             * @default true
             * @constant
             */
            deleted: true;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Messages */
            messages: number;
        };
        /** DocumentCreate */
        DocumentCreate: {
            /**
             * Chunking
             * @description document: ~2,000 characters at boundaries; focused: 512-token windows
             */
            chunking?: ("document" | "focused") | null;
            /**
             * Content
             * @description The body, up to 5 MiB of UTF-8 inline; larger: uploads
             */
            content: string;
            /**
             * Content Type
             * @description text/markdown (default) or text/plain, UTF-8; anything else is 415
             * @default text/markdown
             */
            content_type: string;
            /**
             * Importance
             * @description 0..1, rounded to 6 decimal places
             * @default 0.5
             */
            importance: number;
            /**
             * Kind
             * @default semantic
             * @enum {string}
             */
            kind: "semantic" | "episodic" | "procedural";
            /**
             * Metadata
             * @description A JSON object: <= 64 keys, nested <= 16 levels, <= 64 KiB as JSON
             */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Namespace
             * @default default
             */
            namespace: string;
            /** Source */
            source?: string | null;
            /** Tags */
            tags?: string[];
        };
        /** DocumentInfo */
        DocumentInfo: {
            /** Bytes */
            bytes: number;
            /**
             * Chunking
             * @enum {string}
             */
            chunking: "document" | "focused";
            /** Chunks */
            chunks: number;
            /** Content Type */
            content_type: string;
            /** Sha256 */
            sha256: string;
            /**
             * Synopsis
             * @description memory.content holds the synopsis, not the body
             */
            synopsis: boolean;
            /**
             * Tier
             * @description 0: <= 500 KiB, full body; 1: <= 8 MiB, synopsis + chunks of the body; 2: <= 50 MiB, synopsis + body in documents
             */
            tier: number;
        };
        /** DocumentWritten */
        DocumentWritten: {
            /** Deduplicated */
            deduplicated: boolean;
            document: components["schemas"]["DocumentInfo"];
            memory: components["schemas"]["Memory"];
        };
        /** ErasedIds */
        ErasedIds: {
            /**
             * Consolidation Runs
             * @description Runs whose undo can no longer restore the erased memories
             */
            consolidation_runs?: string[];
            /** Conversations */
            conversations?: string[];
            /**
             * Derived
             * @description Erased because derived (also in memories)
             */
            derived?: string[];
            /** Derived Kept */
            derived_kept?: string[];
            /** Exports */
            exports?: string[];
            /** Memories */
            memories?: string[];
        };
        /**
         * Erasure
         * @description An erasure's audit record: it outlives what it erased, and never holds content.
         */
        Erasure: {
            /**
             * Actor
             * @enum {string}
             */
            actor: "api" | "mcp" | "schedule" | "cli";
            /**
             * Cascade
             * @enum {string}
             */
            cascade: "erase" | "none";
            counts: components["schemas"]["ErasureCounts"];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Dry Run */
            dry_run: boolean;
            /** Error */
            error?: string | null;
            /** Finished At */
            finished_at: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            ids: components["schemas"]["ErasedIds"];
            /**
             * Key Id
             * @description The API key that asked (None: the schedule, the CLI, MCP)
             */
            key_id: string | null;
            /**
             * Namespaces
             * @description Namespaces of what it erased; null: the tenant's erasure, or a record older than this field
             */
            namespaces?: string[] | null;
            /**
             * Scope
             * @enum {string}
             */
            scope: "memory" | "subject" | "trash" | "tenant";
            /**
             * Selector
             * @description What was asked: the selector, the memory id, or the tenant
             */
            selector: {
                [key: string]: unknown;
            };
            /**
             * Status
             * @enum {string}
             */
            status: "queued" | "running" | "done" | "failed";
        };
        /** ErasureCounts */
        ErasureCounts: {
            /**
             * Chunks
             * @description Chunks and their vectors (memory chunks and conversation windows)
             * @default 0
             */
            chunks: number;
            /**
             * Consolidation Actions
             * @description Consolidation actions whose before-image, reason or details lost the erased text
             * @default 0
             */
            consolidation_actions: number;
            /**
             * Conversations
             * @default 0
             */
            conversations: number;
            /**
             * Derived
             * @description Of those, erased because derived from another (cascade)
             * @default 0
             */
            derived: number;
            /**
             * Derived Kept
             * @description Derived memories kept (cascade none)
             * @default 0
             */
            derived_kept: number;
            /**
             * Document Pages
             * @default 0
             */
            document_pages: number;
            /**
             * Documents
             * @description Tier 2 bodies
             * @default 0
             */
            documents: number;
            /**
             * Exports
             * @description Export files that may hold an erased item, deleted
             * @default 0
             */
            exports: number;
            /**
             * Extraction Actions
             * @description Extraction actions, summaries and pushed texts of runs that held an erased memory's words, dropped (the runs stay, without them)
             * @default 0
             */
            extraction_actions: number;
            /**
             * Idempotent Answers
             * @description Stored Idempotency-Key answers that held an erased item
             * @default 0
             */
            idempotent_answers: number;
            /**
             * Links
             * @default 0
             */
            links: number;
            /**
             * Memories
             * @description Memories erased (derived ones included)
             * @default 0
             */
            memories: number;
            /**
             * Messages
             * @default 0
             */
            messages: number;
            /**
             * Topics Removed
             * @description Leaves left without members, removed
             * @default 0
             */
            topics_removed: number;
            /**
             * Topics Renamed
             * @description Topics renamed without the erased memories' words
             * @default 0
             */
            topics_renamed: number;
            /**
             * Uploads
             * @description Upload records (and their S3 objects, if any are left)
             * @default 0
             */
            uploads: number;
            /**
             * Versions
             * @description Earlier versions (history) of the erased memories
             * @default 0
             */
            versions: number;
        };
        /** ErasureCreate */
        ErasureCreate: {
            /**
             * Cascade
             * @description Memories consolidation derived from an erased one (merges, distillations: they may repeat its words). `erase` (default): erased too, and the other memories they were derived from become current again, so the next consolidation run derives anew without the erased text. `none`: kept as they are (listed in ids.derived_kept); only when you know their text does not hold what you erase.
             * @default erase
             * @enum {string}
             */
            cascade: "erase" | "none";
            /**
             * Dry Run
             * @description Count and list what would be erased; erase nothing
             * @default false
             */
            dry_run: boolean;
            selector: components["schemas"]["Selector"];
        };
        /** ErrorBody */
        ErrorBody: {
            /**
             * Code
             * @description Stable, machine-readable: invalid_field, not_found, conflict, ...
             */
            code: string;
            /**
             * Details
             * @description field, limit, fields[], request_id, dependency, ... (null when none)
             */
            details: unknown;
            /**
             * Message
             * @description For people: names the field and the limit
             */
            message: string;
        };
        /**
         * ErrorEnvelope
         * @description Every error this API's functions send.
         */
        ErrorEnvelope: {
            error: components["schemas"]["ErrorBody"];
        };
        /**
         * EvidenceTurn
         * @description A conversation turn a derived memory came from, word for word: why we believe it.
         */
        EvidenceTurn: {
            /** Content */
            content: string;
            /**
             * Conversation Id
             * Format: uuid
             */
            conversation_id: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Message Id
             * Format: uuid
             */
            message_id: string;
            /**
             * Metadata
             * @description The message's metadata, as it was sent
             */
            metadata?: unknown;
            /** Role */
            role: string;
            /** Seq */
            seq: number;
        };
        /** ExportCounts */
        ExportCounts: {
            /**
             * Checkpoints
             * @default 0
             */
            checkpoints: number;
            /**
             * Conversations
             * @default 0
             */
            conversations: number;
            /**
             * Documents
             * @description Memories that are documents (a Tier 2 one with its body)
             * @default 0
             */
            documents: number;
            /**
             * Evidence
             * @description Turns cited as derived memories' evidence
             * @default 0
             */
            evidence: number;
            /**
             * Extraction Runs
             * @description Extraction runs, with their actions
             * @default 0
             */
            extraction_runs: number;
            /**
             * Extraction Settings
             * @default 0
             */
            extraction_settings: number;
            /**
             * Links
             * @default 0
             */
            links: number;
            /**
             * Memories
             * @default 0
             */
            memories: number;
            /**
             * Messages
             * @default 0
             */
            messages: number;
            /**
             * Tasks
             * @default 0
             */
            tasks: number;
            /**
             * Topics
             * @default 0
             */
            topics: number;
            /**
             * Versions
             * @default 0
             */
            versions: number;
        };
        /** ExportCreate */
        ExportCreate: {
            /**
             * Namespace
             * @description Export one namespace; default: all of them
             */
            namespace?: string | null;
        };
        /** ExportJob */
        ExportJob: {
            /**
             * Bytes
             * @description The file's size, once ready
             */
            bytes: number | null;
            /** @description What the file holds, once ready */
            counts: components["schemas"]["ExportCounts"] | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Download Url
             * @description A presigned GET of the JSONL file, once ready; it expires
             */
            download_url: string | null;
            /** Error */
            error: string | null;
            /**
             * Expires At
             * @description When download_url stops working (GET again for a new one)
             */
            expires_at: string | null;
            /** Finished At */
            finished_at: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Namespace */
            namespace: string | null;
            /** Started At */
            started_at: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "queued" | "running" | "ready" | "failed";
        };
        /** ExtractionAction */
        ExtractionAction: {
            /**
             * Action
             * @enum {string}
             */
            action: "add" | "update" | "invalidate" | "restate";
            /** Content */
            content: string;
            /** Event Date */
            event_date: string | null;
            /**
             * Evidence
             * @description The turns, verbatim (run detail)
             */
            evidence?: components["schemas"]["EvidenceTurn"][];
            /** Evidence Seqs */
            evidence_seqs: number[];
            /**
             * Kind
             * @enum {string}
             */
            kind: "fact" | "preference" | "decision" | "event";
            /**
             * Memory Id
             * @description The memory written (add, update)
             */
            memory_id: string | null;
            /** Seq */
            seq: number;
            /**
             * Target Id
             * @description The stored memory acted on (update, invalidate, restate)
             */
            target_id: string | null;
        };
        /** ExtractionRun */
        ExtractionRun: {
            /** Attempts */
            attempts: number;
            /** Conversation Id */
            conversation_id: string | null;
            /**
             * Counts
             * @description Actions by name
             */
            counts?: {
                [key: string]: number;
            };
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Dry Run */
            dry_run: boolean;
            /** Finished At */
            finished_at: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Llm Calls */
            llm_calls: number;
            /** Llm Input Tokens */
            llm_input_tokens: number;
            /** Llm Output Tokens */
            llm_output_tokens: number;
            /** Namespace */
            namespace: string;
            /** Reason */
            reason: string | null;
            /** Seq From */
            seq_from: number | null;
            /** Seq To */
            seq_to: number | null;
            /** Started At */
            started_at: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "queued" | "running" | "waiting" | "done" | "failed" | "undone";
            /** Summary After */
            summary_after: string | null;
            /**
             * Trigger
             * @enum {string}
             */
            trigger: "turns" | "quiet" | "api";
            /** Undone At */
            undone_at: string | null;
        };
        /** ExtractionRunDetail */
        ExtractionRunDetail: {
            /** Actions */
            actions: components["schemas"]["ExtractionAction"][];
            /** Attempts */
            attempts: number;
            /** Conversation Id */
            conversation_id: string | null;
            /**
             * Counts
             * @description Actions by name
             */
            counts?: {
                [key: string]: number;
            };
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Dry Run */
            dry_run: boolean;
            /** Finished At */
            finished_at: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Llm Calls */
            llm_calls: number;
            /** Llm Input Tokens */
            llm_input_tokens: number;
            /** Llm Output Tokens */
            llm_output_tokens: number;
            /** Namespace */
            namespace: string;
            /** Reason */
            reason: string | null;
            /** Seq From */
            seq_from: number | null;
            /** Seq To */
            seq_to: number | null;
            /** Started At */
            started_at: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "queued" | "running" | "waiting" | "done" | "failed" | "undone";
            /** Summary After */
            summary_after: string | null;
            /**
             * Trigger
             * @enum {string}
             */
            trigger: "turns" | "quiet" | "api";
            /** Undone At */
            undone_at: string | null;
        };
        /** ExtractionRunPage */
        ExtractionRunPage: {
            /** Items */
            items: components["schemas"]["ExtractionRun"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /** ExtractionSettingsUpdate */
        ExtractionSettingsUpdate: {
            /**
             * Enabled
             * @default true
             */
            enabled: boolean;
            /**
             * Instructions
             * @description Added to the model's instructions for this namespace (what matters here, what to leave out)
             */
            instructions?: string | null;
            /** Kinds */
            kinds?: ("fact" | "preference" | "decision" | "event")[];
            /** Namespace */
            namespace: string;
        };
        /**
         * ExtractionSpend
         * @description Today's spend against background extraction's daily token budget (see docs/extraction.md).
         */
        ExtractionSpend: {
            /**
             * Daily Tokens
             * @description The budget: ENGRAM_EXTRACTION_DAILY_TOKENS
             */
            daily_tokens: number;
            /**
             * Extraction Tokens Today
             * @description Of those, extraction's and session distillation's
             */
            extraction_tokens_today: number;
            /**
             * Over Budget
             * @description Background extraction jobs wait (until the next UTC day)
             */
            over_budget: boolean;
            /**
             * Tokens Today
             * @description LLM tokens since midnight UTC, every purpose: what the budget counts
             */
            tokens_today: number;
            /**
             * Waiting Runs
             * @description Extraction runs waiting for the budget now
             */
            waiting_runs: number;
        };
        /** ExtractRequest */
        ExtractRequest: {
            /**
             * Conversation Id
             * @description Or a conversation's turns
             */
            conversation_id?: string | null;
            /**
             * Dry Run
             * @description Answer the decisions; write nothing
             * @default false
             */
            dry_run: boolean;
            /**
             * Namespace
             * @description Where derived memories go (default: the conversation's, else 'default')
             */
            namespace?: string | null;
            /**
             * Seq From
             * @description With conversation_id: first turn (default: 1)
             */
            seq_from?: number | null;
            /**
             * Seq To
             * @description With conversation_id: last turn (default: the last)
             */
            seq_to?: number | null;
            /**
             * Text
             * @description Any text: a meeting note, a tool result
             */
            text?: string | null;
        };
        /** Feedback */
        Feedback: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Failure Class */
            failure_class: ("vocabulary_mismatch" | "aggregation_failure" | "stale_ranking" | "missing_content" | "scope_mismatch") | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Note */
            note: string | null;
            /**
             * Recall Id
             * Format: uuid
             */
            recall_id: string;
            /**
             * Weights
             * @description The weights this feedback moved, as they stand now
             */
            weights: components["schemas"]["FeedbackWeight"][];
        };
        /** FeedbackCreate */
        FeedbackCreate: {
            /**
             * Failure Class
             * @description Why the recall missed, when it did
             */
            failure_class?: ("vocabulary_mismatch" | "aggregation_failure" | "stale_ranking" | "missing_content" | "scope_mismatch") | null;
            /**
             * Not Useful
             * @description Results that did not help (the same ids)
             */
            not_useful?: string[];
            /** Note */
            note?: string | null;
            /**
             * Recall Id
             * Format: uuid
             * @description The recall_id a POST /v1/recall answered
             */
            recall_id: string;
            /**
             * Useful
             * @description Results that helped: memory ids, chunk ids or conversation message ids that recall returned
             */
            useful?: string[];
        };
        /** FeedbackWeight */
        FeedbackWeight: {
            /**
             * Id
             * Format: uuid
             * @description What ranking weighs: a memory id, or a conversation window's chunk id
             */
            id: string;
            /**
             * Ranking Factor
             * @description What recall multiplies its fused score by: 1 + weight
             */
            ranking_factor: number;
            /**
             * Weight
             * @description -0.5..1 now; decays back to 0 with time
             */
            weight: number;
        };
        /**
         * GatewayError
         * @description What API Gateway itself sends when it answers before a function runs.
         */
        GatewayError: {
            /** Message */
            message: string;
        };
        /** GrantInfo */
        GrantInfo: {
            /** Client Id */
            client_id: string;
            /** Client Name */
            client_name: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Expires At
             * Format: date-time
             * @description When its refresh token expires unless used
             */
            expires_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Key Id
             * Format: uuid
             * @description The API key that granted it; revoking the key revokes the grant
             */
            key_id: string;
            /** Last Used At */
            last_used_at: string | null;
            /**
             * Namespaces
             * @description null: every namespace
             */
            namespaces: string[] | null;
            /** Resource */
            resource: string;
            /** Revoked At */
            revoked_at: string | null;
            /** Scopes */
            scopes: string[];
        };
        /** GrantList */
        GrantList: {
            /** Grants */
            grants: components["schemas"]["GrantInfo"][];
        };
        /**
         * GraphNeighbour
         * @description A memory linked to a result: what the link says, and the start of the memory's content.
         */
        GraphNeighbour: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Depth */
            depth: number;
            /**
             * Direction
             * @description out: the link goes from the memory before it on the path to this one; in: the other way
             * @enum {string}
             */
            direction: "out" | "in";
            /** Kind */
            kind: string;
            /**
             * Link Id
             * Format: uuid
             */
            link_id: string;
            /**
             * Memory Id
             * Format: uuid
             */
            memory_id: string;
            /** Namespace */
            namespace: string;
            /**
             * Path
             * @description Memory ids from the result to this one
             */
            path: string[];
            /**
             * Relation
             * @enum {string}
             */
            relation: "supersedes" | "caused_by" | "relates_to" | "implements" | "reverts" | "contradicts" | "derived_from" | "part_of";
            /** Strength */
            strength: number;
            /**
             * Summary
             * @description The start of the content; null when budget_chars left no room
             */
            summary: string | null;
            /**
             * Truncated
             * @description The summary is shorter than the content
             */
            truncated: boolean;
        };
        /** ImportCounts */
        ImportCounts: {
            /**
             * Checkpoints
             * @default 0
             */
            checkpoints: number;
            /**
             * Conversations
             * @default 0
             */
            conversations: number;
            /**
             * Documents
             * @default 0
             */
            documents: number;
            /**
             * Evidence
             * @default 0
             */
            evidence: number;
            /**
             * Extraction Runs
             * @default 0
             */
            extraction_runs: number;
            /**
             * Extraction Settings
             * @default 0
             */
            extraction_settings: number;
            /**
             * Links
             * @default 0
             */
            links: number;
            /**
             * Memories
             * @default 0
             */
            memories: number;
            /**
             * Messages
             * @default 0
             */
            messages: number;
            /**
             * Tasks
             * @default 0
             */
            tasks: number;
            /**
             * Versions
             * @default 0
             */
            versions: number;
        };
        /** ImportCreate */
        ImportCreate: {
            /**
             * Id Policy
             * @description keep: a record keeps its id when no other row has it, else gets a new one (links follow); map: every record gets a new id
             * @default keep
             * @enum {string}
             */
            id_policy: "keep" | "map";
            /**
             * Namespace
             * @description Import every record into this namespace; default: each keeps its own
             */
            namespace?: string | null;
            /**
             * Sha256
             * @description Hex SHA-256 of the file: S3 refuses a body that differs
             */
            sha256?: string | null;
            /**
             * Size Bytes
             * @description The file's exact size: the upload URL is bound to it
             */
            size_bytes: number;
        };
        /** ImportJob */
        ImportJob: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Error
             * @description Why the import failed; the report lists refused lines
             */
            error: string | null;
            /**
             * Expires At
             * Format: date-time
             * @description The upload URL works until then
             */
            expires_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Id Policy
             * @enum {string}
             */
            id_policy: "keep" | "map";
            /** Namespace */
            namespace: string | null;
            report: components["schemas"]["ImportReport"] | null;
            /** Size Bytes */
            size_bytes: number;
            /**
             * Status
             * @enum {string}
             */
            status: "pending" | "done" | "failed";
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** ImportReport */
        ImportReport: {
            /** @description Records already present (same content hash in the namespace, or the same conversation or link): not written again */
            deduplicated: components["schemas"]["ImportCounts"];
            imported: components["schemas"]["ImportCounts"];
            /**
             * Lines
             * @description Record lines read (the header and blank lines not counted)
             */
            lines: number;
            /**
             * Mapped Ids
             * @description Records written under a new id because theirs was taken (or id_policy map)
             */
            mapped_ids: number;
            /**
             * Refused
             * @description Lines that cannot be imported, and why (the first 1,000)
             */
            refused: components["schemas"]["Refusal"][];
            /** Refused Count */
            refused_count: number;
            /**
             * Topics Skipped
             * @description Topic records: derived from vectors, rebuilt by the namespace's next consolidation run
             */
            topics_skipped: number;
        };
        /** ImportTicket */
        ImportTicket: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Error
             * @description Why the import failed; the report lists refused lines
             */
            error: string | null;
            /**
             * Expires At
             * Format: date-time
             * @description The upload URL works until then
             */
            expires_at: string;
            /**
             * Headers
             * @description Send these headers with the PUT, exactly
             */
            headers: {
                [key: string]: string;
            };
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Id Policy
             * @enum {string}
             */
            id_policy: "keep" | "map";
            /** Namespace */
            namespace: string | null;
            report: components["schemas"]["ImportReport"] | null;
            /** Size Bytes */
            size_bytes: number;
            /**
             * Status
             * @enum {string}
             */
            status: "pending" | "done" | "failed";
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Upload Url
             * @description Presigned S3 PUT for the JSONL file
             */
            upload_url: string;
        };
        /** IssuedApiKey */
        IssuedApiKey: {
            /**
             * Api Key
             * @description Shown once; only its hash is stored
             */
            api_key: string;
            /**
             * Key Id
             * Format: uuid
             */
            key_id: string;
            /** Scopes */
            scopes: string[];
        };
        /** KeyCreate */
        KeyCreate: {
            /**
             * Name
             * @default
             */
            name: string;
            /** Scopes */
            scopes: ("read" | "write" | "admin")[];
        };
        /** Link */
        Link: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Created By
             * @enum {string}
             */
            created_by: "api" | "consolidation";
            /**
             * Ended At
             * @description Set when the link was ended early
             */
            ended_at?: string | null;
            /** Ended Reason */
            ended_reason?: ("link_deleted" | "memory_deleted") | null;
            /**
             * From Id
             * Format: uuid
             */
            from_id: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /**
             * Relation
             * @enum {string}
             */
            relation: "supersedes" | "caused_by" | "relates_to" | "implements" | "reverts" | "contradicts" | "derived_from" | "part_of";
            /** Run Id */
            run_id: string | null;
            /** Strength */
            strength: number;
            /**
             * To Id
             * Format: uuid
             */
            to_id: string;
            /**
             * Valid From
             * Format: date-time
             */
            valid_from: string;
            /** Valid To */
            valid_to: string | null;
        };
        /** LinkBatchCreate */
        LinkBatchCreate: {
            /**
             * Items
             * @description Up to 100 LinkCreate objects
             */
            items: {
                [key: string]: unknown;
            }[];
        };
        /** LinkBatchItemResult */
        LinkBatchItemResult: {
            /** Error */
            error?: {
                [key: string]: unknown;
            } | null;
            /** Index */
            index: number;
            link?: components["schemas"]["Link"] | null;
            /**
             * Status
             * @enum {string}
             */
            status: "created" | "error";
        };
        /** LinkBatchResult */
        LinkBatchResult: {
            /** Created */
            created: number;
            /** Failed */
            failed: number;
            /** Results */
            results: components["schemas"]["LinkBatchItemResult"][];
        };
        /**
         * LinkCreate
         * @description A typed, directed edge: `from_id` <relation> `to_id` ("A supersedes B": from A, to B).
         */
        LinkCreate: {
            /**
             * From Id
             * Format: uuid
             */
            from_id: string;
            /**
             * Metadata
             * @description A JSON object: <= 64 keys, nested <= 16 levels, <= 64 KiB as JSON
             */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Relation
             * @enum {string}
             */
            relation: "supersedes" | "caused_by" | "relates_to" | "implements" | "reverts" | "contradicts" | "derived_from" | "part_of";
            /**
             * Strength
             * @description 0..1, rounded to 6 decimal places
             * @default 1
             */
            strength: number;
            /**
             * To Id
             * Format: uuid
             */
            to_id: string;
            /**
             * Valid From
             * @description When the relation starts to hold; default now
             */
            valid_from?: string | null;
            /**
             * Valid To
             * @description When it stops holding (exclusive), later than valid_from; default never
             */
            valid_to?: string | null;
        };
        /** LinkPage */
        LinkPage: {
            /** Items */
            items: components["schemas"]["Link"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /** LlmInfo */
        LlmInfo: {
            /** Input Tokens */
            input_tokens: number;
            /** Latency Ms */
            latency_ms: number;
            /** Model */
            model: string;
            /** Output Tokens */
            output_tokens: number;
            /** Provider */
            provider: string;
        };
        /** Memory */
        Memory: {
            /** Access Count */
            access_count: number;
            /**
             * Conflict Key
             * @description The slot this fact fills: writing another with the key supersedes it
             */
            conflict_key?: string | null;
            /** Content */
            content: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Critical
             * @description Recalled and briefed ahead of everything else in its namespace
             * @default false
             */
            critical: boolean;
            /** Deleted At */
            deleted_at: string | null;
            /** Document Tier */
            document_tier: number | null;
            /**
             * Embedding Status
             * @default ready
             * @enum {string}
             */
            embedding_status: "pending" | "ready";
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Importance */
            importance: number;
            /**
             * Kind
             * @enum {string}
             */
            kind: "semantic" | "episodic" | "procedural";
            /** Last Accessed */
            last_accessed: string | null;
            /**
             * Layer
             * @enum {string}
             */
            layer: "buffer" | "working" | "core";
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Namespace */
            namespace: string;
            /** Repetition Count */
            repetition_count: number;
            /** Source */
            source: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "active" | "deleted";
            /** Tags */
            tags: string[];
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /** Valid From */
            valid_from: string | null;
            /** Valid To */
            valid_to: string | null;
            /** Version */
            version: number;
        };
        /** MemoryBatchCreate */
        MemoryBatchCreate: {
            /**
             * Items
             * @description Up to 100 MemoryCreate objects
             */
            items: {
                [key: string]: unknown;
            }[];
        };
        /** MemoryCreate */
        MemoryCreate: {
            /** Conflict Key */
            conflict_key?: string | null;
            /**
             * Content
             * @description The memory text. Larger bodies go to /v1/documents.
             */
            content: string;
            /**
             * Critical
             * @description A fact never to miss: recall, resume, prime and task context return the namespace's critical memories first, whatever the query, within a reserved share of the budget
             * @default false
             */
            critical: boolean;
            /**
             * Importance
             * @description 0..1, rounded to 6 decimal places
             * @default 0.5
             */
            importance: number;
            /**
             * Kind
             * @default semantic
             * @enum {string}
             */
            kind: "semantic" | "episodic" | "procedural";
            /**
             * Metadata
             * @description A JSON object: <= 64 keys, nested <= 16 levels, <= 64 KiB as JSON
             */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Namespace
             * @default default
             */
            namespace: string;
            /** Source */
            source?: string | null;
            /** Tags */
            tags?: string[];
            /** Valid From */
            valid_from?: string | null;
            /** Valid To */
            valid_to?: string | null;
        };
        /** MemoryDetail */
        MemoryDetail: {
            /** Access Count */
            access_count: number;
            /**
             * Conflict Key
             * @description The slot this fact fills: writing another with the key supersedes it
             */
            conflict_key?: string | null;
            /** Content */
            content: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Critical
             * @description Recalled and briefed ahead of everything else in its namespace
             * @default false
             */
            critical: boolean;
            /** Deleted At */
            deleted_at: string | null;
            /** Document Tier */
            document_tier: number | null;
            /**
             * Embedding Status
             * @default ready
             * @enum {string}
             */
            embedding_status: "pending" | "ready";
            /**
             * Evidence
             * @description For a memory extraction derived from conversations (source 'extraction'): the turns it came from, verbatim
             */
            evidence?: components["schemas"]["EvidenceTurn"][];
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Importance */
            importance: number;
            /**
             * Kind
             * @enum {string}
             */
            kind: "semantic" | "episodic" | "procedural";
            /** Last Accessed */
            last_accessed: string | null;
            /**
             * Layer
             * @enum {string}
             */
            layer: "buffer" | "working" | "core";
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Namespace */
            namespace: string;
            /** Repetition Count */
            repetition_count: number;
            /** Source */
            source: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "active" | "deleted";
            /** Tags */
            tags: string[];
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /** Valid From */
            valid_from: string | null;
            /** Valid To */
            valid_to: string | null;
            /** Version */
            version: number;
        };
        /** MemoryHistory */
        MemoryHistory: {
            /**
             * Memory Id
             * Format: uuid
             */
            memory_id: string;
            /**
             * Superseded By
             * @description What replaced this memory, transitively, oldest first
             */
            superseded_by: components["schemas"]["ChainLink"][];
            /**
             * Supersedes
             * @description What this memory replaced, transitively, oldest first
             */
            supersedes: components["schemas"]["ChainLink"][];
            /**
             * Versions
             * @description Every version, oldest first; the last is the current one
             */
            versions: components["schemas"]["MemoryVersion"][];
        };
        /** MemoryPage */
        MemoryPage: {
            /** Items */
            items: components["schemas"]["Memory"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /**
         * MemoryPatch
         * @description Only the fields given change. `source`, `valid_from` and `valid_to` can be cleared with null;
         *     the others cannot be null (the document says so: their schema has no null).
         */
        MemoryPatch: {
            /**
             * Conflict Key
             * @description Set: supersedes the namespace's current memory with this key; null: clears it
             */
            conflict_key?: string | null;
            /** Content */
            content?: string;
            /**
             * Critical
             * @description A fact never to miss: recall, resume, prime and task context return the namespace's critical memories first, whatever the query, within a reserved share of the budget
             */
            critical?: boolean;
            /**
             * Importance
             * @description 0..1, rounded to 6 decimal places
             */
            importance?: number;
            /**
             * Kind
             * @enum {string}
             */
            kind?: "semantic" | "episodic" | "procedural";
            /**
             * Metadata
             * @description A JSON object: <= 64 keys, nested <= 16 levels, <= 64 KiB as JSON
             */
            metadata?: {
                [key: string]: unknown;
            };
            /** Source */
            source?: string | null;
            /** Tags */
            tags?: string[];
            /** Valid From */
            valid_from?: string | null;
            /** Valid To */
            valid_to?: string | null;
        };
        /**
         * MemorySummary
         * @description A memory as the graph shows it: its fields and the start of its content.
         */
        MemorySummary: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Importance */
            importance: number;
            /**
             * Kind
             * @enum {string}
             */
            kind: "semantic" | "episodic" | "procedural";
            /** Namespace */
            namespace: string;
            /**
             * Summary
             * @description The first 280 characters of the content
             */
            summary: string;
            /** Tags */
            tags: string[];
            /**
             * Truncated
             * @description The content is longer than the summary
             */
            truncated: boolean;
            /** Valid From */
            valid_from: string | null;
            /** Valid To */
            valid_to: string | null;
        };
        /** MemoryVersion */
        MemoryVersion: {
            /**
             * Changed At
             * @description When this version was replaced; null for the current one
             */
            changed_at: string | null;
            /** Content */
            content: string;
            /** Importance */
            importance: number;
            /**
             * Kind
             * @enum {string}
             */
            kind: "semantic" | "episodic" | "procedural";
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Source */
            source: string | null;
            /** Tags */
            tags: string[];
            /** Valid From */
            valid_from: string | null;
            /** Valid To */
            valid_to: string | null;
            /** Version */
            version: number;
        };
        /** MemoryWritten */
        MemoryWritten: {
            /**
             * Deduplicated
             * @description True when an identical memory existed; its repetition_count grew
             */
            deduplicated: boolean;
            memory: components["schemas"]["Memory"];
            /**
             * Superseded
             * @description With conflict_key: the memories this one replaced (their validity ended)
             */
            superseded?: string[];
        };
        /** Message */
        Message: {
            /** Content */
            content: string;
            /**
             * Conversation Id
             * Format: uuid
             */
            conversation_id: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Metadata */
            metadata: unknown;
            /**
             * Redacted At
             * @description Set when its content was redacted: it keeps its place, its content is gone
             */
            redacted_at?: string | null;
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant" | "system" | "tool" | "agent";
            /** Seq */
            seq: number;
            /** Tool Call Id */
            tool_call_id: string | null;
            /** Tool Name */
            tool_name: string | null;
        };
        /** MessageCreate */
        MessageCreate: {
            /**
             * Content
             * @description Verbatim text, stored and returned exactly as sent (empty allowed)
             */
            content: string;
            /**
             * Created At
             * @description When it was said; may lie in the past
             */
            created_at?: string | null;
            /**
             * Metadata
             * @description A JSON object, returned as given
             */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant" | "system" | "tool" | "agent";
            /**
             * Tool Call Id
             * @description Only for tool and assistant messages
             */
            tool_call_id?: string | null;
            /**
             * Tool Name
             * @description Only for tool and assistant messages
             */
            tool_name?: string | null;
        };
        /** MessagePage */
        MessagePage: {
            /** Items */
            items: components["schemas"]["Message"][];
            /**
             * Next From Seq
             * @description Pass as from_seq for the next page; null at the end
             */
            next_from_seq: number | null;
        };
        /** MessagesAppend */
        MessagesAppend: {
            /**
             * Idempotency Key
             * @description A retry with the same key returns the first answer and writes nothing (the Idempotency-Key header does the same; when both are given they must be equal)
             */
            idempotency_key?: string | null;
            /**
             * Messages
             * @description Up to 200 messages, appended in order
             */
            messages: components["schemas"]["MessageCreate"][];
        };
        /** NamespaceExtraction */
        NamespaceExtraction: {
            /** Enabled */
            enabled: boolean;
            /** Instructions */
            instructions: string | null;
            /** Kinds */
            kinds: ("fact" | "preference" | "decision" | "event")[];
            /** Namespace */
            namespace: string;
            /** Updated At */
            updated_at: string | null;
        };
        /**
         * OAuthErrorBody
         * @description An OAuth endpoint's error (RFC 6749 section 5.2): invalid_request, invalid_grant, ...
         */
        OAuthErrorBody: {
            /** Error */
            error: string;
            /** Error Description */
            error_description: string;
        };
        /**
         * PendingAuthorization
         * @description What the consent page shows: who asks, for what, and where the answer goes.
         */
        PendingAuthorization: {
            /** Client Id */
            client_id: string;
            /** Client Name */
            client_name: string;
            /**
             * Expires At
             * Format: date-time
             */
            expires_at: string;
            /**
             * Redirect Host
             * @description The host (and port) the answer goes to, never a user name; IDNA for non-ASCII names
             */
            redirect_host: string;
            /** Resource */
            resource: string;
            /** Scopes */
            scopes: string[];
        };
        /** PrimedMemory */
        PrimedMemory: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Critical
             * @description A critical fact: they come first, whatever the task
             * @default false
             */
            critical: boolean;
            /** Importance */
            importance: number;
            /** Kind */
            kind: string;
            /** Layer */
            layer: string | null;
            /**
             * Memory Id
             * Format: uuid
             */
            memory_id: string;
            /** Namespace */
            namespace: string;
            /**
             * Score
             * @description Relevance to the task (recall's score, core memories weighted up)
             */
            score: number;
            /** Tags */
            tags: string[];
            /** Text */
            text: string;
            /** @description The leaf topic the memory belongs to, when the tree has it */
            topic: components["schemas"]["PrimeTopic"] | null;
            /** Truncated */
            truncated: boolean;
        };
        /** PrimeRequest */
        PrimeRequest: {
            /**
             * Budget Chars
             * @default 4000
             */
            budget_chars: number;
            /**
             * Limit
             * @default 10
             */
            limit: number;
            /**
             * Namespace
             * @default default
             */
            namespace: string;
            /**
             * Task
             * @description What the agent is about to do, in its words
             */
            task: string;
        };
        /** PrimeResponse */
        PrimeResponse: {
            /** Budget Chars */
            budget_chars: number;
            /** Degraded */
            degraded: string[];
            /** Results */
            results: components["schemas"]["PrimedMemory"][];
            /**
             * Topics
             * @description The topics the results come from, in order of first appearance
             */
            topics: components["schemas"]["PrimeTopic"][];
            /** Used Chars */
            used_chars: number;
        };
        /** PrimeTopic */
        PrimeTopic: {
            /** Id */
            id: string;
            /** Name */
            name: string;
        };
        /** PurgeResult */
        PurgeResult: {
            /** Chunks */
            chunks: number;
            /** Conversations */
            conversations: number;
            /** Memories */
            memories: number;
            /** Messages */
            messages: number;
            /** Namespace */
            namespace: string;
        };
        /**
         * QueryFilter
         * @description Give exactly one of regex or substrings.
         */
        QueryFilter: {
            /**
             * Case Sensitive
             * @default false
             */
            case_sensitive: boolean;
            /**
             * Regex
             * @description Not with substrings
             */
            regex?: string | null;
            /**
             * Substrings
             * @description Not with regex
             */
            substrings?: string[] | null;
        };
        /** QueryRequest */
        QueryRequest: {
            /**
             * Answer
             * @description Ask the LLM for an answer when one is configured
             * @default true
             */
            answer: boolean;
            filter?: components["schemas"]["QueryFilter"] | null;
            /**
             * Max Spans
             * @default 8
             */
            max_spans: number;
            /** Question */
            question: string;
            /**
             * Token Budget
             * @description Hard cap on span text: 4 UTF-8 bytes per token
             */
            token_budget?: number | null;
            /** Window Chars */
            window_chars?: number | null;
        };
        /** QueryResponse */
        QueryResponse: {
            /** Answer */
            answer: string | null;
            /** Budget Bytes */
            budget_bytes: number;
            /** Citations */
            citations: components["schemas"]["Citation"][];
            /** Document Tier */
            document_tier: number;
            llm: components["schemas"]["LlmInfo"] | null;
            /**
             * Memory Id
             * Format: uuid
             */
            memory_id: string;
            /** Question */
            question: string;
            /**
             * Reason
             * @description Why there is no answer, when there is none
             */
            reason: string | null;
            /**
             * Source
             * @enum {string}
             */
            source: "content" | "chunks" | "document";
            /** Spans */
            spans: components["schemas"]["Span"][];
            /** Token Budget */
            token_budget: number;
            /** Truncated */
            truncated: boolean;
            /** Used Bytes */
            used_bytes: number;
        };
        /** RecalledChunk */
        RecalledChunk: {
            /** Char Start */
            char_start: number;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Position */
            position: number;
            /**
             * Seq From
             * @description Conversation windows: first message seq
             */
            seq_from?: number | null;
            /**
             * Seq To
             * @description Conversation windows: last message seq
             */
            seq_to?: number | null;
            /** Text */
            text: string;
            /**
             * Truncated
             * @description Cut to fit budget_chars
             * @default false
             */
            truncated: boolean;
        };
        /**
         * RecalledMessage
         * @description An original conversation turn, word for word, as a conversation recall result carries it.
         */
        RecalledMessage: {
            /** Content */
            content: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Metadata */
            metadata?: unknown;
            /** Role */
            role: string;
            /** Seq */
            seq: number;
            /** Tool Call Id */
            tool_call_id?: string | null;
            /** Tool Name */
            tool_name?: string | null;
        };
        /**
         * RecallExpand
         * @description Follow each result's links (either way) and attach the memories they reach.
         */
        RecallExpand: {
            /**
             * Depth
             * @description Links to follow from each result
             * @default 1
             */
            depth: number;
            /**
             * Limit
             * @description Linked memories per result, nearest and strongest first
             * @default 5
             */
            limit: number;
            /**
             * Relations
             * @description Leave out for every relation; never empty
             */
            relations?: ("supersedes" | "caused_by" | "relates_to" | "implements" | "reverts" | "contradicts" | "derived_from" | "part_of")[] | null;
        };
        /** RecallHit */
        RecallHit: {
            chunk: components["schemas"]["RecalledChunk"];
            /**
             * Conflicts
             * @description Memories linked to this one by `contradicts`, always flagged
             */
            conflicts?: components["schemas"]["GraphNeighbour"][];
            /**
             * Conversation Id
             * @description Set for conversation results
             */
            conversation_id?: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Critical
             * @description A critical fact, returned ahead of the ranked results
             * @default false
             */
            critical: boolean;
            /**
             * Evidence
             * @description A memory derived from conversations: the turns it came from, verbatim (inside budget_chars)
             */
            evidence?: components["schemas"]["EvidenceTurn"][] | null;
            explain?: components["schemas"]["ScoreParts"] | null;
            /** Importance */
            importance: number;
            /** Kind */
            kind: string;
            /** Layer */
            layer: string | null;
            /**
             * Linked
             * @description With `expand`: the linked memories
             */
            linked?: components["schemas"]["GraphNeighbour"][] | null;
            /**
             * Memory Id
             * @description Set for memory results
             */
            memory_id?: string | null;
            /**
             * Messages
             * @description Conversation results: the window's original messages, verbatim
             */
            messages?: components["schemas"]["RecalledMessage"][] | null;
            /** Namespace */
            namespace: string;
            /** Score */
            score: number;
            /** Source */
            source: string | null;
            /** Tags */
            tags: string[];
            /**
             * Type
             * @default memory
             * @enum {string}
             */
            type: "memory" | "conversation";
        };
        /** RecallRequest */
        RecallRequest: {
            /**
             * As Of
             * @description What was valid at this instant: valid_from (or creation) <= as_of < valid_to; not with include_expired
             */
            as_of?: string | null;
            /**
             * Budget Chars
             * @description Characters of text returned at most (a hard limit)
             */
            budget_chars?: number | null;
            /**
             * Conversation Id
             * @description Only windows of this conversation
             */
            conversation_id?: string | null;
            /**
             * Critical
             * @description The critical memories of the namespaces read come first, whatever the query, within recall_critical_share of budget_chars (ENGRAM_RECALL_CRITICAL_SHARE); false: ranked results only
             * @default true
             */
            critical: boolean;
            /**
             * Diversify
             * @description MMR: a result that nearly repeats an earlier one (cosine above 0.9) waits behind one that says something else; false (the default) ranks by score alone
             * @default false
             */
            diversify: boolean;
            /** @description Attach each result's linked memories (summaries, inside budget_chars) */
            expand?: components["schemas"]["RecallExpand"] | null;
            /**
             * Explain
             * @default false
             */
            explain: boolean;
            /**
             * Format
             * @description full: every field, conversation results with their original messages; compact: each result's text once with its id, score, namespace and time
             * @default full
             * @enum {string}
             */
            format: "full" | "compact";
            /**
             * Include Expired
             * @description Also memories whose valid_to has passed; not with as_of
             * @default false
             */
            include_expired: boolean;
            /**
             * Kinds
             * @description Memory kinds and/or 'conversation' (conversation windows); default all
             */
            kinds?: ("semantic" | "episodic" | "procedural" | "conversation")[] | null;
            /** Layers */
            layers?: ("buffer" | "working" | "core")[] | null;
            /**
             * Limit
             * @description Results at most; unset with budget_chars: 100, and the budget decides how many fit
             * @default 10
             */
            limit: number;
            /**
             * Min Score
             * @description Drop results scoring below this (the scale of `score`): no filler when little is relevant
             */
            min_score?: number | null;
            /**
             * Mode
             * @default hybrid
             * @enum {string}
             */
            mode: "hybrid" | "vector" | "keyword";
            /** Namespace */
            namespace?: string | null;
            /** Namespaces */
            namespaces?: string[] | null;
            /** Query */
            query: string;
            /**
             * Rerank
             * @description Re-score the best fused candidates with a Bedrock rerank model and order by its relevance (`score` becomes it); without a configured reranker the results come unreranked, `degraded` says so
             * @default false
             */
            rerank: boolean;
            /**
             * Rewrite Query
             * @description The LLM rewrites the question into up to 3 paraphrases and keyword lists, searched with it and fused in (one metered LLM call); unavailable, recall answers without them and `degraded` says so
             * @default false
             */
            rewrite_query: boolean;
            /** Since */
            since?: string | null;
            /** Source */
            source?: string | null;
            /**
             * Tags
             * @description Every tag must be present
             */
            tags?: string[] | null;
            /**
             * Topics
             * @description Only memories of these topics (GET /v1/topics), nodes included
             */
            topics?: string[] | null;
            /**
             * Touch
             * @default true
             */
            touch: boolean;
            /** @description Say where each expected memory (an id or a phrase) went: its rank in the vector and keyword lists, or why it was not a candidate, its fused rank and score, and why it was not returned */
            trace?: components["schemas"]["RecallTraceRequest"] | null;
            /** Until */
            until?: string | null;
        };
        /** RecallResponse */
        RecallResponse: {
            /** Budget Chars */
            budget_chars?: number | null;
            /**
             * Degraded
             * @description Parts of the search that were unavailable, if any
             */
            degraded: string[];
            /**
             * Query Rewrites
             * @description With rewrite_query: the rewrites searched with the question
             */
            query_rewrites?: string[] | null;
            /**
             * Recall Id
             * @description Name this recall in POST /v1/feedback (null for a read-only key, or with feedback retention 0)
             */
            recall_id?: string | null;
            /**
             * Results
             * @description RecallHit with format full, CompactHit with compact
             */
            results: (components["schemas"]["RecallHit"] | components["schemas"]["CompactHit"])[];
            /** @description With `trace`: where each expected item went */
            trace?: components["schemas"]["RecallTrace"] | null;
            /**
             * Used Chars
             * @default 0
             */
            used_chars: number;
        };
        /** RecallTrace */
        RecallTrace: {
            /**
             * Candidates Per List
             * @description Candidates each list (vector, keyword) gives fusion
             */
            candidates_per_list: number;
            /**
             * Depth
             * @description How far down each list the trace searched
             */
            depth: number;
            /** Items */
            items: components["schemas"]["TracedItem"][];
        };
        /**
         * RecallTraceRequest
         * @description What the caller expected recall to find: it says where each went.
         */
        RecallTraceRequest: {
            /**
             * Expected
             * @description Memory ids, or phrases the expected text holds (case-insensitive; up to 3 matches each)
             */
            expected: string[];
        };
        /** RedirectTo */
        RedirectTo: {
            /**
             * Redirect To
             * @description Where the consent page sends the browser back to the client
             */
            redirect_to: string;
        };
        /** Refusal */
        Refusal: {
            /**
             * Line
             * @description 1-based line number in the file
             */
            line: number;
            /** Reason */
            reason: string;
        };
        /** ResumeMemory */
        ResumeMemory: {
            /** Importance */
            importance: number;
            /** Kind */
            kind: string;
            /** Layer */
            layer: string;
            /**
             * Memory Id
             * Format: uuid
             */
            memory_id: string;
            /** Namespace */
            namespace: string;
            /** Text */
            text: string;
            /**
             * Truncated
             * @description Cut to fit its section (Recent only: Core memories are whole or left out)
             */
            truncated: boolean;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** ResumeResponse */
        ResumeResponse: {
            /** Budget Chars */
            budget_chars: number;
            /** Core */
            core: components["schemas"]["ResumeMemory"][];
            /**
             * Critical
             * @description Critical facts, first and within ENGRAM_RECALL_CRITICAL_SHARE of the budget (each line cut to 300 characters)
             */
            critical: components["schemas"]["ResumeMemory"][];
            /**
             * Namespaces
             * @description The namespace asked for, merged with `default`
             */
            namespaces: string[];
            /** Recent */
            recent: components["schemas"]["ResumeMemory"][];
            /** Recent Hours */
            recent_hours: number;
            /** Sections */
            sections: {
                [key: string]: components["schemas"]["ResumeSection"];
            };
            /**
             * Sessions
             * @description The project status and the latest conversations' summaries
             */
            sessions?: components["schemas"]["ResumeSession"][];
            /**
             * Text
             * @description The briefing as text, what format=text returns
             */
            text: string;
            /** Topics */
            topics: components["schemas"]["ResumeTopic"][];
            /** Triggers */
            triggers: components["schemas"]["ResumeTrigger"][];
            /**
             * Used Chars
             * @description Characters of the text form; never above budget_chars
             */
            used_chars: number;
        };
        /** ResumeSection */
        ResumeSection: {
            /**
             * Budget Chars
             * @description The section's share of budget_chars (with what earlier sections left)
             */
            budget_chars: number;
            /**
             * Omitted
             * @description Items that did not fit
             */
            omitted: number;
            /** Used Chars */
            used_chars: number;
        };
        /**
         * ResumeSession
         * @description A conversation's rolling summary (extraction keeps it), or the project status distilled from them.
         */
        ResumeSession: {
            /**
             * Conversation Id
             * @description None for the project status
             */
            conversation_id: string | null;
            /** Namespace */
            namespace: string;
            /** Summary */
            summary: string;
            /** Title */
            title: string | null;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** ResumeTopic */
        ResumeTopic: {
            /** Id */
            id: string;
            /** Member Count */
            member_count: number;
            /** Name */
            name: string;
            /** Namespace */
            namespace: string;
        };
        /** ResumeTrigger */
        ResumeTrigger: {
            /**
             * Access Count
             * @description Recalls of the memories carrying it, together
             */
            access_count: number;
            /** Memories */
            memories: number;
            /**
             * Trigger
             * @description The tag without its `trigger:` prefix
             */
            trigger: string;
        };
        /**
         * RevokeForm
         * @description The revocation endpoint's form (RFC 7009): an unknown, expired or revoked token is no error.
         */
        RevokeForm: {
            /** Token */
            token: string;
            /**
             * Token Type Hint
             * @default null
             */
            token_type_hint: ("access_token" | "refresh_token") | null;
        };
        /** Run */
        Run: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Dry Run */
            dry_run: boolean;
            /**
             * Epoch
             * @description The namespace's epoch this run advanced to (None for dry runs / not yet)
             */
            epoch: number | null;
            /**
             * Erased Memories
             * @description Memories this run touched that were erased since (POST /v1/memories/{id}/erase, POST /v1/erasures): undo restores everything else and cannot bring these back
             */
            erased_memories?: string[];
            /** Error */
            error: string | null;
            /** Finished At */
            finished_at: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Llm Calls */
            llm_calls: number;
            /**
             * Llm Capped
             * @description Set when a cap stopped the run's LLM steps: which cap
             */
            llm_capped: string | null;
            /** Llm Input Tokens */
            llm_input_tokens: number;
            /** Llm Output Tokens */
            llm_output_tokens: number;
            /** Namespace */
            namespace: string;
            /** Started At */
            started_at: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "queued" | "running" | "done" | "failed" | "undone";
            /** Step Counts */
            step_counts: components["schemas"]["StepCounts"][];
            /** Steps */
            steps: string[];
            /**
             * Trigger
             * @enum {string}
             */
            trigger: "api" | "schedule" | "cli";
            /** Undone At */
            undone_at: string | null;
        };
        /** RunPage */
        RunPage: {
            /** Items */
            items: components["schemas"]["Run"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /** RunWithActions */
        RunWithActions: {
            actions: components["schemas"]["ActionPage"];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Dry Run */
            dry_run: boolean;
            /**
             * Epoch
             * @description The namespace's epoch this run advanced to (None for dry runs / not yet)
             */
            epoch: number | null;
            /**
             * Erased Memories
             * @description Memories this run touched that were erased since (POST /v1/memories/{id}/erase, POST /v1/erasures): undo restores everything else and cannot bring these back
             */
            erased_memories?: string[];
            /** Error */
            error: string | null;
            /** Finished At */
            finished_at: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Llm Calls */
            llm_calls: number;
            /**
             * Llm Capped
             * @description Set when a cap stopped the run's LLM steps: which cap
             */
            llm_capped: string | null;
            /** Llm Input Tokens */
            llm_input_tokens: number;
            /** Llm Output Tokens */
            llm_output_tokens: number;
            /** Namespace */
            namespace: string;
            /** Started At */
            started_at: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "queued" | "running" | "done" | "failed" | "undone";
            /** Step Counts */
            step_counts: components["schemas"]["StepCounts"][];
            /** Steps */
            steps: string[];
            /**
             * Trigger
             * @enum {string}
             */
            trigger: "api" | "schedule" | "cli";
            /** Undone At */
            undone_at: string | null;
        };
        /** ScoreParts */
        ScoreParts: {
            /**
             * Feedback
             * @description Feedback's ranking factor (0.5..2) that multiplied `fused`, when there was feedback
             */
            feedback?: number | null;
            /** Fused */
            fused: number;
            /** Importance */
            importance: number;
            /** Keyword */
            keyword: number | null;
            /** Recency */
            recency: number;
            /**
             * Rerank
             * @description With rerank: the reranker's relevance (the `score`)
             */
            rerank?: number | null;
            /**
             * Rewrites
             * @description With rewrite_query: the part of `fused` the rewrites' lists gave
             */
            rewrites?: number | null;
            /** Vector */
            vector: number | null;
        };
        /**
         * Selector
         * @description What a subject erasure covers: every given field must match (AND). At least one of namespace, tags,
         *     metadata or conversation_id is required; since/until only narrow.
         */
        Selector: {
            /**
             * Conversation Id
             * @description This conversation, with its messages
             */
            conversation_id?: string | null;
            /**
             * Metadata
             * @description Memories and conversations whose metadata contains this (JSON containment: {"user_id": "u-42"})
             */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /**
             * Namespace
             * @description Memories and conversations of this namespace
             */
            namespace?: string | null;
            /**
             * Since
             * @description Created at or after
             */
            since?: string | null;
            /**
             * Tags
             * @description Memories and conversations carrying all these tags
             */
            tags?: string[] | null;
            /**
             * Until
             * @description Created before; later than since when both are given
             */
            until?: string | null;
        };
        /** Span */
        Span: {
            /** End */
            end: number;
            /**
             * N
             * @description 1-based; the answer cites [n]
             */
            n: number;
            /** Score */
            score: number;
            /**
             * Start
             * @description Character offset in the document body
             */
            start: number;
            /** Text */
            text: string;
            /** Truncated */
            truncated: boolean;
        };
        /** StepCounts */
        StepCounts: {
            /**
             * Actions
             * @default 0
             */
            actions: number;
            /**
             * Candidates
             * @default 0
             */
            candidates: number;
            /**
             * Seconds
             * @default 0
             */
            seconds: number;
            /** Skipped */
            skipped?: string | null;
            /** Step */
            step: string;
        };
        /** Task */
        Task: {
            /** Agent Id */
            agent_id: string | null;
            /** Checkpoint Count */
            checkpoint_count: number;
            /**
             * Conversation Id
             * Format: uuid
             * @description The ledger: its messages are the task's events
             */
            conversation_id: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Ended At */
            ended_at: string | null;
            /** Event Count */
            event_count: number;
            /** Goal */
            goal: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Namespace */
            namespace: string;
            /** Outcome */
            outcome: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "running" | "done" | "failed" | "cancelled";
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** TaskContext */
        TaskContext: {
            /** Budget Chars */
            budget_chars: number;
            /**
             * Checkpoints
             * @description The latest checkpoint first, then earlier ones as room allows
             */
            checkpoints: components["schemas"]["Checkpoint"][];
            /**
             * Critical
             * @description The namespace's critical facts, first in the text
             */
            critical: components["schemas"]["ContextMemory"][];
            /** Degraded */
            degraded: string[];
            /**
             * Events
             * @description Events since the latest checkpoint, in order (the newest kept)
             */
            events: components["schemas"]["ContextEvent"][];
            /** Memories */
            memories: components["schemas"]["ContextMemory"][];
            /** Neighbours */
            neighbours: components["schemas"]["ContextNeighbour"][];
            /** Query */
            query: string;
            /** Sections */
            sections: {
                [key: string]: components["schemas"]["ContextSection"];
            };
            task: components["schemas"]["Task"];
            /**
             * Text
             * @description The context as text to paste into a prompt
             */
            text: string;
            /**
             * Used Chars
             * @description Characters of `text`; never above budget_chars
             */
            used_chars: number;
        };
        /** TaskContextRequest */
        TaskContextRequest: {
            /**
             * Budget Chars
             * @description A hard limit on the text returned
             * @default 8000
             */
            budget_chars: number;
            /**
             * Query
             * @description What the agent needs next; default the goal
             */
            query?: string | null;
            shares?: components["schemas"]["ContextShares"];
        };
        /** TaskCreate */
        TaskCreate: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * Goal
             * @description What the task is for, in the agent's words
             */
            goal: string;
            /**
             * Metadata
             * @description A JSON object: <= 64 keys, nested <= 16 levels, <= 64 KiB as JSON
             */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Namespace
             * @default default
             */
            namespace: string;
        };
        /** TaskEnd */
        TaskEnd: {
            /**
             * Outcome
             * @description How it ended, in a few words
             */
            outcome?: string | null;
            /**
             * Status
             * @default done
             * @enum {string}
             */
            status: "done" | "failed" | "cancelled";
        };
        /** TaskPage */
        TaskPage: {
            /** Items */
            items: components["schemas"]["Task"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /** TenantErase */
        TenantErase: {
            /**
             * Confirm
             * Format: uuid
             * @description This tenant's id, repeated: the erasure cannot be undone
             */
            confirm: string;
        };
        /**
         * TokenForm
         * @description The token endpoint's form (application/x-www-form-urlencoded). authorization_code needs code,
         *     code_verifier, redirect_uri and client_id; refresh_token needs refresh_token and client_id. A
         *     parameter sent twice is invalid_request.
         */
        TokenForm: {
            /**
             * Client Id
             * @description The client the code or token was issued to
             */
            client_id: string;
            /**
             * Code
             * @description authorization_code: the one-time code
             * @default null
             */
            code: string | null;
            /**
             * Code Verifier
             * @description authorization_code: the PKCE verifier (RFC 7636)
             * @default null
             */
            code_verifier: string | null;
            /**
             * Grant Type
             * @enum {string}
             */
            grant_type: "authorization_code" | "refresh_token";
            /**
             * Redirect Uri
             * @description authorization_code: as in the authorization request
             * @default null
             */
            redirect_uri: string | null;
            /**
             * Refresh Token
             * @description refresh_token: the token
             * @default null
             */
            refresh_token: string | null;
            /**
             * Resource
             * @description This API's <base>/mcp when given (RFC 8707)
             * @default null
             */
            resource: string | null;
            /**
             * Scope
             * @description refresh_token: narrower scopes (never wider)
             * @default null
             */
            scope: string | null;
        };
        /** TopicDetail */
        TopicDetail: {
            /** Children */
            children?: components["schemas"]["TopicNode"][];
            /**
             * Depth
             * @description 0: a top-level topic
             */
            depth: number;
            /** Id */
            id: string;
            /** Is Leaf */
            is_leaf: boolean;
            /**
             * Keywords
             * @description Distinctive words of the topic against its siblings
             */
            keywords: string[];
            /** Member Count */
            member_count: number;
            memories: components["schemas"]["TopicMembers"];
            /** Name */
            name: string;
            /**
             * Named By
             * @enum {string}
             */
            named_by: "keywords" | "llm";
            /** Namespace */
            namespace: string;
            /** Parent Id */
            parent_id: string | null;
            /**
             * Path
             * @description Ids from the top-level topic down to this one
             */
            path: string[];
            /**
             * Samples
             * @description The start of a few member memories
             */
            samples?: string[];
        };
        /** TopicLookupRequest */
        TopicLookupRequest: {
            /** Ids */
            ids: string[];
            /**
             * Limit
             * @description Members per topic
             * @default 20
             */
            limit: number;
            /**
             * Offset
             * @description Members to skip (next_offset of a page)
             * @default 0
             */
            offset: number;
            /**
             * Order
             * @default importance
             * @enum {string}
             */
            order: "importance" | "newest";
            /**
             * Summary Chars
             * @description Characters of each member's content
             * @default 300
             */
            summary_chars: number;
        };
        /** TopicLookupResponse */
        TopicLookupResponse: {
            /**
             * Missing
             * @description Ids that name no topic of yours (any more)
             */
            missing: string[];
            /** Topics */
            topics: components["schemas"]["TopicMembers"][];
        };
        /** TopicMember */
        TopicMember: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Importance */
            importance: number;
            /** Kind */
            kind: string;
            /** Layer */
            layer: string;
            /** Leaf Id */
            leaf_id: string;
            /**
             * Memory Id
             * Format: uuid
             */
            memory_id: string;
            /** Namespace */
            namespace: string;
            /**
             * Similarity
             * @description Cosine to the leaf's centroid when the memory joined it
             */
            similarity: number | null;
            /**
             * Summary
             * @description The start of the content
             */
            summary: string;
            /** Tags */
            tags: string[];
            /** Truncated */
            truncated: boolean;
        };
        /** TopicMembers */
        TopicMembers: {
            /** Id */
            id: string;
            /** Member Count */
            member_count: number;
            /** Memories */
            memories: components["schemas"]["TopicMember"][];
            /** Name */
            name: string;
            /**
             * Next Offset
             * @description Pass as offset for the next page; null: no more
             */
            next_offset: number | null;
        };
        /** TopicNode */
        TopicNode: {
            /** Children */
            children?: components["schemas"]["TopicNode"][];
            /**
             * Depth
             * @description 0: a top-level topic
             */
            depth: number;
            /** Id */
            id: string;
            /** Is Leaf */
            is_leaf: boolean;
            /**
             * Keywords
             * @description Distinctive words of the topic against its siblings
             */
            keywords: string[];
            /** Member Count */
            member_count: number;
            /** Name */
            name: string;
            /**
             * Named By
             * @enum {string}
             */
            named_by: "keywords" | "llm";
            /** Parent Id */
            parent_id: string | null;
            /**
             * Samples
             * @description The start of a few member memories
             */
            samples?: string[];
        };
        /** TopicTree */
        TopicTree: {
            /**
             * Built At
             * @description When the tree was last rebuilt; null: no tree yet
             */
            built_at: string | null;
            /**
             * Leaves
             * @default 0
             */
            leaves: number;
            /**
             * Memories
             * @description Memories the last rebuild clustered
             * @default 0
             */
            memories: number;
            /** Namespace */
            namespace: string;
            /** Topics */
            topics: components["schemas"]["TopicNode"][];
            /**
             * Version
             * @default 0
             */
            version: number;
        };
        /**
         * TracedItem
         * @description Where one expected memory or conversation window went in this recall.
         */
        TracedItem: {
            /**
             * Candidate
             * @description Within the candidates each list gives fusion
             * @default false
             */
            candidate: boolean;
            /**
             * Chunk Id
             * @description Its best chunk (a conversation window: the window)
             */
            chunk_id?: string | null;
            /** Conversation Id */
            conversation_id?: string | null;
            /**
             * Expected
             * @description The id or phrase as given
             */
            expected: string;
            /**
             * Fused Rank
             * @description Its place after fusion (and rerank or MMR)
             */
            fused_rank?: number | null;
            /**
             * Keyword Rank
             * @description Its place in the keyword list, searched to `depth`
             */
            keyword_rank?: number | null;
            /** Memory Id */
            memory_id?: string | null;
            /**
             * Rank
             * @description Its place in `results` (1 = first)
             */
            rank?: number | null;
            /**
             * Reasons
             * @description Why it was not a candidate or not returned: not_found, in_trash, superseded, expired, not_valid_yet, filtered_by_namespace / tag / kind / source / layer / conversation / topic / time, no_vector_yet, no_keyword_match, vector_rank_beyond_candidates, keyword_rank_beyond_candidates, below_min_score, past_limit, past_budget, cut_by_rerank_or_diversify
             */
            reasons?: string[];
            /**
             * Returned
             * @default false
             */
            returned: boolean;
            /** Score */
            score?: number | null;
            /**
             * Vector Rank
             * @description Its place in the vector list, searched to `depth`
             */
            vector_rank?: number | null;
        };
        /** Traversal */
        Traversal: {
            /**
             * As Of
             * Format: date-time
             */
            as_of: string;
            /**
             * Nodes
             * @description Breadth first: nearest first, each memory once
             */
            nodes: components["schemas"]["TraversalNode"][];
            root: components["schemas"]["MemorySummary"];
            /**
             * Truncated
             * @description The node limit cut the walk short
             */
            truncated: boolean;
        };
        /** TraversalNode */
        TraversalNode: {
            /** Depth */
            depth: number;
            memory: components["schemas"]["MemorySummary"];
            /**
             * Path
             * @description Memory ids from the start memory to this one
             */
            path: string[];
            /** @description The link that reached this memory */
            via: components["schemas"]["Link"];
        };
        /** UploadCreate */
        UploadCreate: {
            /**
             * Chunking
             * @description document: ~2,000 characters at boundaries; focused: 512-token windows
             */
            chunking?: ("document" | "focused") | null;
            /**
             * Content Type
             * @description text/markdown (default) or text/plain, UTF-8; anything else is 415
             * @default text/markdown
             */
            content_type: string;
            /**
             * Importance
             * @description 0..1, rounded to 6 decimal places
             * @default 0.5
             */
            importance: number;
            /**
             * Kind
             * @default semantic
             * @enum {string}
             */
            kind: "semantic" | "episodic" | "procedural";
            /**
             * Metadata
             * @description A JSON object: <= 64 keys, nested <= 16 levels, <= 64 KiB as JSON
             */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Namespace
             * @default default
             */
            namespace: string;
            /**
             * Sha256
             * @description Hex SHA-256 of the object
             */
            sha256: string;
            /**
             * Size Bytes
             * @description Exact size of the object you will PUT (at most 50 MiB)
             */
            size_bytes: number;
            /** Source */
            source?: string | null;
            /** Tags */
            tags?: string[];
        };
        /** UploadStatus */
        UploadStatus: {
            /** Content Type */
            content_type: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Deduplicated */
            deduplicated: boolean | null;
            /** Document Tier */
            document_tier: number | null;
            /**
             * Expires At
             * Format: date-time
             */
            expires_at: string;
            /** Memory Id */
            memory_id: string | null;
            /** Namespace */
            namespace: string;
            /** Reason */
            reason: string | null;
            /** Size Bytes */
            size_bytes: number;
            /**
             * Status
             * @enum {string}
             */
            status: "pending" | "ready" | "failed";
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Upload Id
             * Format: uuid
             */
            upload_id: string;
        };
        /** UploadTicket */
        UploadTicket: {
            /** Content Type */
            content_type: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Deduplicated */
            deduplicated: boolean | null;
            /** Document Tier */
            document_tier: number | null;
            /**
             * Expires At
             * Format: date-time
             */
            expires_at: string;
            /**
             * Headers
             * @description Send exactly these headers with the PUT
             */
            headers: {
                [key: string]: string;
            };
            /** Memory Id */
            memory_id: string | null;
            /**
             * Method
             * @default PUT
             * @constant
             */
            method: "PUT";
            /** Namespace */
            namespace: string;
            /** Reason */
            reason: string | null;
            /** Size Bytes */
            size_bytes: number;
            /**
             * Status
             * @enum {string}
             */
            status: "pending" | "ready" | "failed";
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Upload Id
             * Format: uuid
             */
            upload_id: string;
            /**
             * Url
             * @description PUT the body here before expires_at
             */
            url: string;
        };
        /** UsageLine */
        UsageLine: {
            /** Calls */
            calls: number;
            /**
             * Component
             * @description What the calls were for: query_document, recall_expansion, consolidation_gate, consolidation_merge, consolidation_reconcile, ...
             */
            component: string;
            /**
             * Day
             * Format: date
             * @description UTC day
             */
            day: string;
            /**
             * Failed Calls
             * @description Calls that failed after their retries (counted in calls)
             */
            failed_calls: number;
            /** Input Tokens */
            input_tokens: number;
            /**
             * Latency Ms
             * @description Total time spent in these calls
             */
            latency_ms: number;
            /** Model */
            model: string;
            /** Output Tokens */
            output_tokens: number;
        };
        /** UsageReport */
        UsageReport: {
            /** Calls */
            calls: number;
            extraction: components["schemas"]["ExtractionSpend"];
            /** Input Tokens */
            input_tokens: number;
            /**
             * Lines
             * @description By day (oldest first), component and model
             */
            lines: components["schemas"]["UsageLine"][];
            /** Output Tokens */
            output_tokens: number;
            /**
             * Since
             * Format: date-time
             */
            since: string;
            /**
             * Until
             * Format: date-time
             */
            until: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    authorization_server__well_known_oauth_authorization_server_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    protected_resource__well_known_oauth_protected_resource_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    protected_resource_mcp__well_known_oauth_protected_resource_mcp_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    openid_configuration__well_known_openid_configuration_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    authorize_oauth_authorize_get: {
        parameters: {
            query: {
                /** @description A registered client's id, or the https URL of its Client ID Metadata Document; anything else gets the page */
                client_id: string;
                /** @description PKCE S256 challenge */
                code_challenge: string;
                /** @description Always S256 */
                code_challenge_method: "S256";
                /** @description One of the client's registered redirect URIs (may be left out when it registered exactly one) */
                redirect_uri?: string;
                /** @description This API's <base>/mcp (RFC 8707); default that */
                resource?: string;
                /** @description Always code */
                response_type: "code";
                /** @description Space-separated; default read write */
                scope?: string;
                /** @description Returned as given */
                state?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the consent page, or back to the client with error= */
            302: {
                headers: {
                    /** @description Where the browser goes next */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A page for the person: the request cannot be sent back to the client */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    register_oauth_register_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ClientRegistration"];
            };
        };
        responses: {
            /** @description Registered */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description OAuth's error: invalid_request, invalid_grant, ... (RFC 6749) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthErrorBody"] | components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description OAuth's error: invalid_request, invalid_grant, ... (RFC 6749) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthErrorBody"] | components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    pending_oauth_requests__request_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingAuthorization"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    approve_oauth_requests__request_id__approve_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Approval"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RedirectTo"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deny_oauth_requests__request_id__deny_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RedirectTo"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    revoke_oauth_revoke_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["RevokeForm"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description OAuth's error: invalid_request, invalid_grant, ... (RFC 6749) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthErrorBody"] | components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    token_oauth_token_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["TokenForm"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description OAuth's error: invalid_request, invalid_grant, ... (RFC 6749) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthErrorBody"] | components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description OAuth's error: invalid_request, invalid_grant, ... (RFC 6749) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthErrorBody"] | components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    consolidate_v1_consolidate_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConsolidateRequest"];
            };
        };
        responses: {
            /** @description Queued: poll GET /v1/consolidation-runs/{run_id} */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Run"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An applied run of this namespace is still queued or running, or: The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_runs_v1_consolidation_runs_get: {
        parameters: {
            query?: {
                /** @description next_cursor of the previous page, exactly as returned: any other value is 422 (cursor) */
                cursor?: string | null;
                limit?: number;
                namespace?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunPage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_run_v1_consolidation_runs__run_id__get: {
        parameters: {
            query?: {
                /** @description actions.next_cursor, exactly as returned: any other value is 422 */
                cursor?: string | null;
                limit?: number;
            };
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunWithActions"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    undo_run_v1_consolidation_runs__run_id__undo_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run, now undone */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Run"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Memories changed since the run (named), or a later run exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_conversations_v1_conversations_get: {
        parameters: {
            query?: {
                agent_id?: string | null;
                /** @description next_cursor of the previous page, exactly as returned: any other value is 422 (cursor) */
                cursor?: string | null;
                limit?: number;
                namespace?: string | null;
                /** @description Repeatable; every tag given must be present */
                tag?: string[] | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationPage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_conversation_v1_conversations_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_conversation_v1_conversations__conversation_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    delete_conversation_v1_conversations__conversation_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletedConversation"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_messages_v1_conversations__conversation_id__messages_get: {
        parameters: {
            query?: {
                from_seq?: number | null;
                limit?: number;
                /** @description Not below from_seq */
                to_seq?: number | null;
            };
            header?: never;
            path: {
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessagePage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    append_messages_v1_conversations__conversation_id__messages_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path: {
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessagesAppend"];
            };
        };
        responses: {
            /** @description Retry of an idempotency key: the first answer, nothing written */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppendResult"];
                };
            };
            /** @description Appended */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppendResult"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The idempotency key was used for a different set of messages */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_document_v1_documents_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DocumentCreate"];
            };
        };
        responses: {
            /** @description Duplicate: existing memory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DocumentWritten"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DocumentWritten"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large: use uploads */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not text */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_upload_v1_documents_uploads_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UploadCreate"];
            };
        };
        responses: {
            /** @description Upload created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadTicket"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Over 50 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_upload_v1_documents_uploads__upload_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                upload_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadStatus"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_erasure_v1_erasures_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ErasureCreate"];
            };
        };
        responses: {
            /** @description The erasure and its report (it ran in the request) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Erasure"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_erasure_v1_erasures__erasure_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                erasure_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Erasure"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_export_v1_exports_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExportCreate"];
            };
        };
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportJob"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_export_v1_exports__export_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                export_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportJob"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    extract_v1_extract_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExtractRequest"];
            };
        };
        responses: {
            /** @description The run, with its decisions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExtractionRunDetail"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description No LLM configured (code llm_unavailable): nothing was extracted */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The model failed (the run is recorded as failed) */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_runs_v1_extraction_runs_get: {
        parameters: {
            query?: {
                /** @description Only runs over this conversation */
                conversation_id?: string | null;
                /** @description next_cursor of the previous page, exactly as returned: any other value is 422 (cursor) */
                cursor?: string | null;
                limit?: number;
                namespace?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExtractionRunPage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_run_v1_extraction_runs__run_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExtractionRunDetail"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    undo_run_v1_extraction_runs__run_id__undo_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Undone */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExtractionRunDetail"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The run is not done, is a dry run, or was undone already */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_settings_v1_extraction_settings_get: {
        parameters: {
            query: {
                /** @description The namespace */
                namespace: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceExtraction"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    put_settings_v1_extraction_settings_put: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExtractionSettingsUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceExtraction"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    give_feedback_v1_feedback_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FeedbackCreate"];
            };
        };
        responses: {
            /** @description Recorded; the weights it moved */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Feedback"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description No such recall (or past its retention) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description This recall already has its feedback; or The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    grants_v1_grants_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GrantList"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    revoke_grant_v1_grants__grant_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                grant_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    health_v1_health_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    liveness_v1_health_live_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_import_v1_imports_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ImportCreate"];
            };
        };
        responses: {
            /** @description Import created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportTicket"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Over the import size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_import_v1_imports__import_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                import_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportJob"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_keys_v1_keys_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyInfo"][];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_key_v1_keys_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["KeyCreate"];
            };
        };
        responses: {
            /** @description Issued */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedApiKey"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The tenant has as many active keys as it may (details.limit) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    revoke_key_v1_keys__key_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_links_v1_links_get: {
        parameters: {
            query?: {
                /** @description next_cursor of the previous page, exactly as returned: any other value is 422 (cursor) */
                cursor?: string | null;
                /** @description With memory_id: out (from it), in (to it) or both */
                direction?: "out" | "in" | "both";
                /** @description Also links that no longer hold (history) */
                include_ended?: boolean;
                limit?: number;
                /** @description Only links touching this memory */
                memory_id?: string | null;
                /** @description Only these relations (repeatable) */
                relation?: ("supersedes" | "caused_by" | "relates_to" | "implements" | "reverts" | "contradicts" | "derived_from" | "part_of")[] | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LinkPage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_link_v1_links_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LinkCreate"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Link"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A memory is missing or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The same link already holds during this validity, or: The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    delete_link_v1_links__link_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                link_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Link"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_link_batch_v1_links_batch_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LinkBatchCreate"];
            };
        };
        responses: {
            /** @description One result per item */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LinkBatchResult"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_memories_v1_memories_get: {
        parameters: {
            query?: {
                /** @description next_cursor of the previous page, exactly as returned: any other value is 422 (cursor) */
                cursor?: string | null;
                kind?: ("semantic" | "episodic" | "procedural") | null;
                layer?: ("buffer" | "working" | "core") | null;
                limit?: number;
                namespace?: string | null;
                /** @description Created at or after (ISO 8601) */
                since?: string | null;
                /** @description Repeatable; every tag given must be present */
                tag?: string[] | null;
                /** @description Created before (ISO 8601) */
                until?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryPage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_memory_v1_memories_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryCreate"];
            };
        };
        responses: {
            /** @description Duplicate: existing memory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryWritten"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryWritten"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_memory_v1_memories__memory_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryDetail"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    delete_memory_v1_memories__memory_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Memory"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    patch_memory_v1_memories__memory_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryPatch"];
            };
        };
        responses: {
            /** @description Changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Memory"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Another active memory in the namespace has this content */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    erase_memory_v1_memories__memory_id__erase_post: {
        parameters: {
            query?: {
                /** @description Memories consolidation derived from an erased one (merges, distillations: they may repeat its words). `erase` (default): erased too, and the other memories they were derived from become current again, so the next consolidation run derives anew without the erased text. `none`: kept as they are (listed in ids.derived_kept); only when you know their text does not hold what you erase. */
                cascade?: "erase" | "none";
            };
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Erased (now, or by the erasure named) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Erasure"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    history_v1_memories__memory_id__history_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryHistory"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    traverse_v1_memories__memory_id__links_get: {
        parameters: {
            query?: {
                /** @description Only links valid at this instant; default now */
                as_of?: string | null;
                /** @description Links to follow from the memory */
                depth?: number;
                /** @description out: follow links from each memory; in: to it */
                direction?: "out" | "in" | "both";
                /** @description At most this many memories */
                limit?: number;
                /** @description Only these relations (repeatable) */
                relation?: ("supersedes" | "caused_by" | "relates_to" | "implements" | "reverts" | "contradicts" | "derived_from" | "part_of")[] | null;
            };
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Traversal"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    query_document_v1_memories__memory_id__query_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QueryRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueryResponse"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    restore_memory_v1_memories__memory_id__restore_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Restored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Memory"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The memory is active, or an identical active memory exists meanwhile */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_batch_v1_memories_batch_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryBatchCreate"];
            };
        };
        responses: {
            /** @description One result per item */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchResult"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    purge_namespace_v1_namespaces__namespace__purge_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PurgeResult"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    openapi_v1_openapi_json_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    prime_v1_prime_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PrimeRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrimeResponse"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    recall_memories_v1_recall_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecallRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecallResponse"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_resume_v1_resume_get: {
        parameters: {
            query?: {
                /** @description Hard limit of the text */
                budget_chars?: number;
                /** @description text: the briefing alone, as text/plain */
                format?: "json" | "text";
                /** @description Read with `default` */
                namespace?: string;
                /** @description What counts as recent */
                recent_hours?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The briefing as JSON, or with format=text as text/plain to paste */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResumeResponse"];
                    "text/plain": string;
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    tenant_stats_v1_stats_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_tasks_v1_tasks_get: {
        parameters: {
            query?: {
                /** @description next_cursor of the previous page, exactly as returned: any other value is 422 (cursor) */
                cursor?: string | null;
                limit?: number;
                namespace?: string | null;
                status?: ("running" | "done" | "failed" | "cancelled") | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskPage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    start_task_v1_tasks_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TaskCreate"];
            };
        };
        responses: {
            /** @description Started */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_task_v1_tasks__task_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_checkpoints_v1_tasks__task_id__checkpoints_get: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Checkpoint"][];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    create_checkpoint_v1_tasks__task_id__checkpoints_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckpointCreate"];
            };
        };
        responses: {
            /** @description Written */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Checkpoint"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Idempotency-Key was used for a different request */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    task_context_v1_tasks__task_id__context_post: {
        parameters: {
            query?: {
                /** @description text: the context alone, as text/plain */
                format?: "json" | "text";
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TaskContextRequest"];
            };
        };
        responses: {
            /** @description The context as JSON, or with format=text as text/plain to paste */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskContext"];
                    "text/plain": string;
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    end_task_v1_tasks__task_id__end_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TaskEnd"];
            };
        };
        responses: {
            /** @description Ended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The task has already ended */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_events_v1_tasks__task_id__events_get: {
        parameters: {
            query?: {
                from_seq?: number | null;
                limit?: number;
                to_seq?: number | null;
            };
            header?: never;
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessagePage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    append_events_v1_tasks__task_id__events_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description A retry with the same key and the same body returns the first answer, with its status, and writes nothing; the same key with another body is a 409. A key is the caller's tenant's alone */
                "idempotency-key"?: string | null;
            };
            path: {
                task_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessagesAppend"];
            };
        };
        responses: {
            /** @description Retry of an idempotency key: the first answer, nothing written */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppendResult"];
                };
            };
            /** @description Appended */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AppendResult"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The task has ended, or the idempotency key was used for other events */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    redact_event_v1_tasks__task_id__events__seq__redact_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                seq: number;
                task_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Not found, or not this tenant's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    erase_tenant_v1_tenant_erase_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TenantErase"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Erasure"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_topics_v1_topics_get: {
        parameters: {
            query?: {
                /** @description Deepest level shown (0: top-level only) */
                depth?: number | null;
                namespace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TopicTree"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    get_topic_v1_topics__topic_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                topic_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topic */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TopicDetail"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description No such topic, or not yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    lookup_topics_v1_topics_lookup_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TopicLookupRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TopicLookupResponse"];
                };
            };
            /** @description Malformed body: not UTF-8, or not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description Too large (says the limit and the alternative) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    list_trash_v1_trash_get: {
        parameters: {
            query?: {
                /** @description next_cursor of the previous page, exactly as returned: any other value is 422 (cursor) */
                cursor?: string | null;
                limit?: number;
                namespace?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryPage"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    tenant_usage_v1_usage_get: {
        parameters: {
            query?: {
                /** @description Calls at or after (ISO 8601); default: 30 days ago */
                since?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageReport"];
                };
            };
            /** @description No API key, or a key that is not valid */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description The key lacks the scope this route needs (details.required_scope) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description An invalid field: details.field, details.limit when there is one, details.fields[] for all */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Throttled */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A bug on our side (details.request_id; the log has the rest) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"] | components["schemas"]["GatewayError"];
                };
            };
            /** @description A dependency is down (details.dependency); with Retry-After when it is expected back soon */
            503: {
                headers: {
                    /** @description Seconds to wait before sending the request again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
}
