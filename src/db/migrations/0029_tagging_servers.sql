-- Google's tagging servers of `sgtm` containers on the `process` driver: what should run (written by the container
-- worker), what runs (written by the supervising process: one row per replica and generation, so a rollout's new
-- replica and the old one it replaces are both seen) and what the replicas printed.
CREATE TABLE "tagging_server_deployments" (
	"container_id" text PRIMARY KEY NOT NULL REFERENCES "containers"("id"),
	"sealed_config" text NOT NULL,
	"preview_server_url" text NOT NULL,
	"version" text NOT NULL,
	"replicas" integer NOT NULL,
	"generation" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tagging_server_replicas" (
	"container_id" text NOT NULL REFERENCES "containers"("id"),
	"name" text NOT NULL,
	"role" text NOT NULL,
	"supervisor" text NOT NULL,
	"address" text,
	"state" text NOT NULL,
	"reason" text,
	"restarts" integer DEFAULT 0 NOT NULL,
	"generation" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tagging_server_replicas_pkey" PRIMARY KEY ("container_id", "name", "generation")
);
--> statement-breakpoint
CREATE TABLE "tagging_server_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"container_id" text NOT NULL REFERENCES "containers"("id"),
	"replica" text NOT NULL,
	"stream" text NOT NULL,
	"line" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tagging_server_logs_container_idx" ON "tagging_server_logs" ("container_id", "id");
