-- The outgoing log: what the built-in runtime sent to each vendor (GA4, Meta Conversions API) and what the vendor
-- answered, one row per forward once delivered or given up. Kept per the plan's `outgoing_log_retention_days`.
CREATE TABLE "outgoing_log" (
	"id" text PRIMARY KEY NOT NULL,
	"container_id" text NOT NULL REFERENCES "containers"("id"),
	"vendor" text NOT NULL,
	"destination" text NOT NULL,
	"event_name" text NOT NULL,
	"event_id" text,
	"request" jsonb NOT NULL,
	"status" text NOT NULL,
	"http_status" integer,
	"error" text,
	"attempts" integer NOT NULL,
	"latency_ms" integer,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "outgoing_log_container_at_idx" ON "outgoing_log" ("container_id", "at", "id");
--> statement-breakpoint
CREATE INDEX "outgoing_log_container_event_id_idx" ON "outgoing_log" ("container_id", "event_id");
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"outgoing_log_retention_days": 3}'::jsonb WHERE "id" = 'free';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"outgoing_log_retention_days": 7}'::jsonb WHERE "id" = 'pro';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"outgoing_log_retention_days": 14}'::jsonb WHERE "id" = 'business';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"outgoing_log_retention_days": 30}'::jsonb WHERE "id" = 'agency';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"outgoing_log_retention_days": 30}'::jsonb WHERE "id" = 'partner';
