-- Monitor checks run as pg-boss jobs: the database leases of the old scheduler go, and every check records the due
-- time it was run for (one check per monitor and due time; lag = checked_at - due_at).
DROP INDEX IF EXISTS "monitors_due_idx";--> statement-breakpoint
ALTER TABLE "monitors" DROP COLUMN IF EXISTS "lease_owner";--> statement-breakpoint
ALTER TABLE "monitors" DROP COLUMN IF EXISTS "lease_until";--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "monitors_due_idx" ON "monitors" USING btree ("next_check_at") WHERE "paused" = false;--> statement-breakpoint
ALTER TABLE "monitor_checks" ADD COLUMN "due_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "monitor_checks_due_idx" ON "monitor_checks" USING btree ("monitor_id","due_at");--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP COLUMN IF EXISTS "lease_until";
