-- Request Delay: requests held and sent to the container when due; and the runs of containers' scheduled requests.
CREATE TABLE "delayed_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"container_id" text NOT NULL REFERENCES "containers"("id") ON DELETE CASCADE,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"headers" jsonb NOT NULL,
	"body" bytea NOT NULL,
	"delay_minutes" integer NOT NULL,
	"status" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"http_status" integer,
	"error" text,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "delayed_requests_container_idx" ON "delayed_requests" ("container_id", "created_at", "id");
--> statement-breakpoint
CREATE INDEX "delayed_requests_due_idx" ON "delayed_requests" ("next_attempt_at") WHERE status = 'pending';
--> statement-breakpoint
CREATE INDEX "delayed_requests_finished_idx" ON "delayed_requests" ("finished_at") WHERE status <> 'pending';
--> statement-breakpoint
CREATE TABLE "schedule_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"container_id" text NOT NULL REFERENCES "containers"("id") ON DELETE CASCADE,
	"schedule_name" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"http_status" integer,
	"error" text,
	"duration_ms" integer,
	"started_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_runs_due_idx" ON "schedule_runs" ("container_id", "schedule_name", "due_at");
--> statement-breakpoint
CREATE INDEX "schedule_runs_container_idx" ON "schedule_runs" ("container_id", "started_at", "id");
