CREATE TABLE "container_request_logs" (
	"id" text PRIMARY KEY NOT NULL,
	"container_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"hostname" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status_code" integer NOT NULL,
	"duration_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "container_usage" (
	"container_id" text NOT NULL,
	"day" text NOT NULL,
	"hostname" text NOT NULL,
	"status_class" text NOT NULL,
	"requests" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "containers" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"region" text NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"pending_action" text,
	"config" text NOT NULL,
	"upstream_url" text,
	"default_hostname" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "domains" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"container_id" text NOT NULL,
	"hostname" text NOT NULL,
	"status" text NOT NULL,
	"failure_reason" text,
	"verification_token" text NOT NULL,
	"last_checked_at" timestamp with time zone,
	"verified_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"type" text NOT NULL,
	"object_type" text NOT NULL,
	"object_id" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "containers" ADD CONSTRAINT "containers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_container_id_containers_id_fk" FOREIGN KEY ("container_id") REFERENCES "public"."containers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "container_request_logs_idx" ON "container_request_logs" USING btree ("container_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "container_usage_key" ON "container_usage" USING btree ("container_id","day","hostname","status_class");--> statement-breakpoint
CREATE INDEX "containers_tenant_idx" ON "containers" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "containers_default_hostname_idx" ON "containers" USING btree ("default_hostname");--> statement-breakpoint
CREATE UNIQUE INDEX "domains_hostname_live_idx" ON "domains" USING btree ("hostname") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "domains_tenant_idx" ON "domains" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "events_tenant_idx" ON "events" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "events_object_idx" ON "events" USING btree ("object_id","created_at");