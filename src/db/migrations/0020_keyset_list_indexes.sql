-- Cursor pagination (starting_after / ending_before): every list index ends with (sort key, id), the list's order,
-- so a keyset condition `(sort_key, id) < (…)` is an index condition and a deep page reads what page 1 reads.
DROP INDEX IF EXISTS "memberships_tenant_idx";--> statement-breakpoint
CREATE INDEX "memberships_tenant_idx" ON "memberships" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "invitations_tenant_idx";--> statement-breakpoint
CREATE INDEX "invitations_tenant_idx" ON "invitations" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "api_keys_tenant_idx";--> statement-breakpoint
CREATE INDEX "api_keys_tenant_idx" ON "api_keys" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "containers_tenant_idx";--> statement-breakpoint
CREATE INDEX "containers_tenant_idx" ON "containers" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "domains_tenant_idx";--> statement-breakpoint
CREATE INDEX "domains_tenant_idx" ON "domains" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "events_tenant_idx";--> statement-breakpoint
CREATE INDEX "events_tenant_idx" ON "events" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "events_tenant_object_idx";--> statement-breakpoint
CREATE INDEX "events_tenant_object_idx" ON "events" USING btree ("tenant_id","object_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "events_tenant_type_idx";--> statement-breakpoint
CREATE INDEX "events_tenant_type_idx" ON "events" USING btree ("tenant_id","type","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "container_request_logs_idx";--> statement-breakpoint
CREATE INDEX "container_request_logs_idx" ON "container_request_logs" USING btree ("container_id","at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "monitors_tenant_idx";--> statement-breakpoint
CREATE INDEX "monitors_tenant_idx" ON "monitors" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "monitor_checks_monitor_idx";--> statement-breakpoint
CREATE INDEX "monitor_checks_monitor_idx" ON "monitor_checks" USING btree ("monitor_id","checked_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "incidents_tenant_idx";--> statement-breakpoint
CREATE INDEX "incidents_tenant_idx" ON "incidents" USING btree ("tenant_id","opened_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "webhooks_tenant_idx";--> statement-breakpoint
CREATE INDEX "webhooks_tenant_idx" ON "webhooks" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "webhook_deliveries_webhook_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook_idx" ON "webhook_deliveries" USING btree ("webhook_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "reports_tenant_idx";--> statement-breakpoint
CREATE INDEX "reports_tenant_idx" ON "reports" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
DROP INDEX IF EXISTS "meta_event_deliveries_recent_idx";--> statement-breakpoint
CREATE INDEX "meta_event_deliveries_recent_idx" ON "meta_event_deliveries" USING btree ("meta_pixel_id","last_attempt_at","event_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "meta_pixels_container_created_idx" ON "meta_pixels" USING btree ("container_id","created_at","id");
