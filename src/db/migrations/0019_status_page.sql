ALTER TABLE "platform_incidents" ADD COLUMN "source" text DEFAULT 'automatic' NOT NULL;--> statement-breakpoint
DROP INDEX "platform_incidents_one_open";--> statement-breakpoint
CREATE UNIQUE INDEX "platform_incidents_one_open" ON "platform_incidents" USING btree ("component") WHERE resolved_at is null and source = 'automatic';--> statement-breakpoint
CREATE INDEX "platform_incidents_opened_idx" ON "platform_incidents" USING btree ("opened_at");--> statement-breakpoint
CREATE TABLE "platform_incident_updates" (
	"id" text PRIMARY KEY NOT NULL,
	"incident_id" text NOT NULL REFERENCES "platform_incidents"("id") ON DELETE cascade,
	"status" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_incident_updates_status_check" CHECK ("status" in ('investigating', 'identified', 'monitoring', 'resolved'))
);--> statement-breakpoint
CREATE INDEX "platform_incident_updates_incident_idx" ON "platform_incident_updates" USING btree ("incident_id","created_at");--> statement-breakpoint
CREATE TABLE "status_check_days" (
	"component" text NOT NULL,
	"day" date NOT NULL,
	"checks" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "status_check_days_pk" PRIMARY KEY("component","day")
);--> statement-breakpoint
CREATE TABLE "maintenance_windows" (
	"id" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"message" text NOT NULL,
	"components" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "maintenance_windows_order_check" CHECK ("ends_at" > "starts_at")
);--> statement-breakpoint
CREATE INDEX "maintenance_windows_ends_idx" ON "maintenance_windows" USING btree ("ends_at");--> statement-breakpoint
CREATE TABLE "status_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"target" text NOT NULL,
	"confirm_token_hash" text,
	"unsubscribe_token" text NOT NULL,
	"confirmed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "status_subscriptions_kind_check" CHECK ("kind" in ('email', 'webhook'))
);--> statement-breakpoint
CREATE UNIQUE INDEX "status_subscriptions_target_idx" ON "status_subscriptions" USING btree ("kind","target");--> statement-breakpoint
CREATE UNIQUE INDEX "status_subscriptions_unsubscribe_idx" ON "status_subscriptions" USING btree ("unsubscribe_token");--> statement-breakpoint
CREATE UNIQUE INDEX "status_subscriptions_confirm_idx" ON "status_subscriptions" USING btree ("confirm_token_hash");--> statement-breakpoint
CREATE TABLE "platform_operators" (
	"tenant_id" text PRIMARY KEY NOT NULL REFERENCES "tenants"("id") ON DELETE cascade,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
