-- Tracking monitors: scheduled scans of a site's key pages, each run compared with a baseline run; a run that
-- differs opens a tracking incident. Plans get their limits (count, shortest interval, pages per run).
CREATE TABLE "tracking_monitors" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL REFERENCES "tenants"("id"),
	"name" text NOT NULL,
	"pages" jsonb NOT NULL,
	"follow_links" integer NOT NULL,
	"interval_seconds" integer NOT NULL,
	"consent_check" boolean NOT NULL,
	"loss_threshold_pct" integer NOT NULL,
	"rules" jsonb NOT NULL,
	"container_id" text,
	"notification_channel_ids" jsonb NOT NULL,
	"status" text NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"baseline_run_id" text,
	"last_run_at" timestamp with time zone,
	"next_run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tracking_monitors_tenant_idx" ON "tracking_monitors" ("tenant_id", "created_at", "id");
--> statement-breakpoint
CREATE INDEX "tracking_monitors_due_idx" ON "tracking_monitors" ("next_run_at") WHERE "paused" = false;
--> statement-breakpoint
CREATE TABLE "tracking_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"monitor_id" text NOT NULL REFERENCES "tracking_monitors"("id") ON DELETE cascade,
	"tenant_id" text NOT NULL,
	"trigger" text NOT NULL,
	"result" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"error" text,
	"changes" jsonb NOT NULL,
	"pages" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tracking_runs_monitor_idx" ON "tracking_runs" ("monitor_id", "due_at", "id");
--> statement-breakpoint
CREATE UNIQUE INDEX "tracking_runs_due_idx" ON "tracking_runs" ("monitor_id", "due_at") WHERE "trigger" = 'schedule';
--> statement-breakpoint
CREATE TABLE "tracking_incidents" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"monitor_id" text NOT NULL REFERENCES "tracking_monitors"("id") ON DELETE cascade,
	"status" text NOT NULL,
	"severity" text NOT NULL,
	"opened_run_id" text NOT NULL,
	"last_run_id" text NOT NULL,
	"changes" jsonb NOT NULL,
	"resolution" text,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "tracking_incidents_monitor_idx" ON "tracking_incidents" ("monitor_id", "opened_at", "id");
--> statement-breakpoint
CREATE UNIQUE INDEX "tracking_incidents_one_open" ON "tracking_incidents" ("monitor_id") WHERE resolved_at is null;
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"max_tracking_monitors": 1, "tracking_monitor_min_interval_seconds": 86400, "tracking_monitor_max_pages": 3}'::jsonb WHERE "id" = 'free';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"max_tracking_monitors": 5, "tracking_monitor_min_interval_seconds": 3600, "tracking_monitor_max_pages": 10}'::jsonb WHERE "id" = 'pro';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"max_tracking_monitors": 20, "tracking_monitor_min_interval_seconds": 3600, "tracking_monitor_max_pages": 20}'::jsonb WHERE "id" = 'business';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"max_tracking_monitors": 100, "tracking_monitor_min_interval_seconds": 3600, "tracking_monitor_max_pages": 20}'::jsonb WHERE "id" = 'agency';
--> statement-breakpoint
UPDATE "plans" SET "features" = "features" || '{"max_tracking_monitors": 500, "tracking_monitor_min_interval_seconds": 3600, "tracking_monitor_max_pages": 20}'::jsonb WHERE "id" = 'partner';
--> statement-breakpoint
-- Channels subscribed to every earlier type get the tracking incidents too.
UPDATE "notification_channels"
	SET "event_types" = "event_types" || '["tracking_incident.opened", "tracking_incident.resolved"]'::jsonb
	WHERE "event_types" @> '["incident.opened", "incident.acknowledged", "incident.resolved", "certificate.failed", "container.failed", "container.forwarding_degraded"]'::jsonb
		AND NOT "event_types" @> '["tracking_incident.opened"]'::jsonb;
