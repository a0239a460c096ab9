-- The keyword side of recall reads every row a query word matches through this view, and the view's
-- tenant condition, engram_current_tenant() inlined (current_setting parsed to a uuid), was evaluated
-- once per matched row: about a third of the match scan's time at 100k chunks (1,500 matches). As a
-- scalar subquery it is evaluated once per statement (an InitPlan) and compared as a constant; the
-- rows it leaves are the same. Recreated whole (SELECT * expanded now), as 0019 did.
DROP VIEW tenant_chunks;
CREATE VIEW tenant_chunks AS
  SELECT * FROM chunks WHERE tenant_id = (SELECT engram_current_tenant());
GRANT SELECT ON tenant_chunks TO engram_app;
