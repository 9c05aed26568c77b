-- Client tenants per agency or partner; plans that cannot own clients get 0.
UPDATE "plans" SET "features" = "features" || jsonb_build_object('max_client_tenants', CASE "id" WHEN 'agency' THEN 100 WHEN 'partner' THEN 1000 ELSE 0 END)
WHERE "features" -> 'max_client_tenants' IS NULL;
--> statement-breakpoint
-- Overrides were only checked as "integer or boolean": drop booleans stored for integer limits (true was counted as 1).
UPDATE "tenants" SET "feature_overrides" = (
  SELECT coalesce(jsonb_object_agg("key", "value"), '{}'::jsonb) FROM jsonb_each("tenants"."feature_overrides")
  WHERE NOT ("key" IN ('max_containers', 'max_monitors', 'monitor_min_interval_seconds', 'tracking_checker_api_hourly') AND jsonb_typeof("value") = 'boolean')
)
WHERE EXISTS (
  SELECT 1 FROM jsonb_each("tenants"."feature_overrides")
  WHERE "key" IN ('max_containers', 'max_monitors', 'monitor_min_interval_seconds', 'tracking_checker_api_hourly') AND jsonb_typeof("value") = 'boolean'
);
--> statement-breakpoint
-- Domain claims: every account may hold one claim per hostname, only one claim per hostname can be active.
DROP INDEX IF EXISTS "domains_hostname_live_idx";
--> statement-breakpoint
CREATE UNIQUE INDEX "domains_hostname_tenant_live_idx" ON "domains" USING btree ("hostname","tenant_id") WHERE deleted_at is null;
--> statement-breakpoint
CREATE UNIQUE INDEX "domains_hostname_active_idx" ON "domains" USING btree ("hostname") WHERE deleted_at is null and status = 'active';
