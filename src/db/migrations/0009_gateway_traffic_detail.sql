ALTER TABLE "container_usage" ADD COLUMN "request_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "container_usage" ADD COLUMN "response_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "container_request_logs" ADD COLUMN "upstream" text;--> statement-breakpoint
ALTER TABLE "container_request_logs" ADD COLUMN "upstream_ms" integer;
