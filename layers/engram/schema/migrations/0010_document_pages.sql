-- Tier-2 bodies also in pages, so a question reads only the pages that can match (issue 13).
-- Depends on 0003.
--
-- Page n holds the body's characters [n * 65536, n * 65536 + 65536 + 4096): consecutive pages
-- overlap by 4 KiB, so a substring filter (at most 200 characters) crossing a border is whole in
-- one page. `words` holds the page's distinct \w+ runs, lowered: the words the span ranker matches
-- its terms against (a term is a word prefix), written by the ingest with the page (computing them
-- in Python costs a quarter of to_tsvector's parse of 40 MiB and gives exactly the ranker's words).
-- Only "which pages hold a word starting with ..." is asked of it, through the GIN index.
CREATE TABLE document_pages (
  tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  memory_id  uuid NOT NULL REFERENCES documents(memory_id) ON DELETE CASCADE,
  page_no    integer NOT NULL CHECK (page_no >= 0),
  char_start bigint NOT NULL CHECK (char_start >= 0),
  text       text NOT NULL,
  words      tsvector NOT NULL,
  PRIMARY KEY (memory_id, page_no)
);
CREATE INDEX document_pages_words ON document_pages USING gin (words);

ALTER TABLE document_pages ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON document_pages
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON document_pages TO engram_app;

-- The Tier-2 bodies stored before this migration (new ones are paged by the ingest, in the
-- transaction that writes the body). The same pages; their words from Postgres' \w, which in the
-- C locale knows ASCII only (a question with a non-ASCII term scans the whole body anyway).
INSERT INTO document_pages (tenant_id, memory_id, page_no, char_start, text, words)
SELECT d.tenant_id, d.memory_id, g, g::bigint * 65536, p.text,
       array_to_tsvector(ARRAY(SELECT DISTINCT lower(m[1]) FROM regexp_matches(p.text, '(\w+)', 'g') AS m))
  FROM documents d
 CROSS JOIN LATERAL generate_series(0, greatest(0, (char_length(d.body) - 1) / 65536)) AS g
 CROSS JOIN LATERAL (SELECT substr(d.body, g * 65536 + 1, 65536 + 4096) AS text) AS p;
