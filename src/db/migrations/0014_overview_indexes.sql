CREATE INDEX "containers_failed_idx" ON "containers" USING btree ("tenant_id") WHERE status = 'failed';--> statement-breakpoint
CREATE INDEX "incidents_unresolved_idx" ON "incidents" USING btree ("tenant_id") WHERE resolved_at is null;
