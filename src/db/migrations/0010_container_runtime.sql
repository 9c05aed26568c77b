ALTER TABLE "containers" ADD COLUMN "runtime" text DEFAULT 'builtin' NOT NULL;--> statement-breakpoint
ALTER TABLE "containers" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
UPDATE "containers" SET "runtime" = 'upstream' WHERE "upstream_url" IS NOT NULL;--> statement-breakpoint
UPDATE "containers" SET "settings" = jsonb_build_object('loader_path', 'l' || substr(md5(random()::text || "id"), 1, 8));--> statement-breakpoint
CREATE TABLE "container_runtime_usage" (
	"container_id" text NOT NULL,
	"day" text NOT NULL,
	"hits_received" integer DEFAULT 0 NOT NULL,
	"ga4_forwarded" integer DEFAULT 0 NOT NULL,
	"meta_forwarded" integer DEFAULT 0 NOT NULL,
	"forwards_failed" integer DEFAULT 0 NOT NULL,
	"bots_dropped" integer DEFAULT 0 NOT NULL,
	"cookies_restored" integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "container_runtime_usage_key" ON "container_runtime_usage" USING btree ("container_id","day");
