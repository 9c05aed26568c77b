ALTER TABLE "scans" DROP CONSTRAINT "scans_status_check";--> statement-breakpoint
ALTER TABLE "scans" ADD CONSTRAINT "scans_status_check" CHECK ("scans"."status" in ('queued', 'running', 'completed', 'failed'));--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "stage" text;--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "started_at" timestamp with time zone;
