-- Every tenant policy compares with (SELECT engram_current_tenant()) instead of the bare call: the same
-- rows, but the planner takes the tenant as a value known only at run time (an InitPlan, computed
-- once a statement) instead of reading the request's tenant id into its estimates.
-- Why: a tenant the last ANALYZE did not see (a new one, after its first bulk import) was estimated at
-- a row or two, so any index that leads with tenant_id looked as good as the table's own key, and
-- lookups by id went through the tenant's every row. A new tenant's 30,000 memories beside another's
-- 30,300, statistics from before it came: recall p50 1,875 ms unfiltered and 962 ms with a namespace
-- and tag, against 20.3 and 22.6 ms once analysed. Estimated as the average tenant instead: 15.6 and
-- 21.3 ms before ANALYZE, 11.6 and 19.4 after (bench/perf/plans_after_growth.py; autoanalyze comes
-- only when 10% of a table has changed). tests/integration/schema/test_tenant_policies.py holds it.
-- New policies are written this way (tests/integration/schema/test_tenant_tables.py checks it).
DO $$
DECLARE
  p record;
BEGIN
  FOR p IN SELECT tablename, qual, with_check FROM pg_policies
           WHERE schemaname = 'public' AND policyname = 'tenant_isolation'
  LOOP
    EXECUTE format('ALTER POLICY tenant_isolation ON %I USING (%s)%s', p.tablename,
                   replace(p.qual, 'engram_current_tenant()', '(SELECT engram_current_tenant())'),
                   CASE WHEN p.with_check IS NULL THEN ''
                        ELSE format(' WITH CHECK (%s)',
                                    replace(p.with_check, 'engram_current_tenant()', '(SELECT engram_current_tenant())'))
                   END);
  END LOOP;
  IF EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = 'public'
             AND (qual ~ '= engram_current_tenant\(\)' OR with_check ~ '= engram_current_tenant\(\)')) THEN
    RAISE EXCEPTION 'a policy still compares with engram_current_tenant() itself';
  END IF;
END
$$;
