CREATE TABLE "scans" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"api_key_id" text,
	"url" text NOT NULL,
	"language" text NOT NULL,
	"options" jsonb NOT NULL,
	"status" text NOT NULL,
	"result" jsonb,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "scans_status_check" CHECK ("scans"."status" in ('running', 'completed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "scans" ADD CONSTRAINT "scans_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scans_tenant_created_idx" ON "scans" USING btree ("tenant_id","created_at");