-- Indexes that match the lists' filters and sort orders, the reports' tenant filters and the retention deletes.
CREATE INDEX IF NOT EXISTS "tenants_parent_created_idx" ON "tenants" USING btree ("parent_id","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tenants_parent_status_created_idx" ON "tenants" USING btree ("parent_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "scans_tenant_created_id_idx" ON "scans" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "monitor_checks_tenant_checked_idx" ON "monitor_checks" USING btree ("tenant_id","checked_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "monitor_checks_checked_idx" ON "monitor_checks" USING btree ("checked_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "events_tenant_type_idx" ON "events" USING btree ("tenant_id","type","created_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "events_tenant_object_idx" ON "events" USING btree ("tenant_id","object_id","created_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "events_created_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "container_request_logs_at_idx" ON "container_request_logs" USING btree ("at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "container_usage_day_idx" ON "container_usage" USING btree ("day");
