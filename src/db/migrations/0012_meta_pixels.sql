CREATE TABLE "meta_pixels" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL REFERENCES "tenants"("id"),
	"container_id" text NOT NULL REFERENCES "containers"("id"),
	"pixel_id" text NOT NULL,
	"access_token_sealed" text NOT NULL,
	"access_token_last4" text NOT NULL,
	"test_event_code" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "meta_pixels_container_pixel_idx" ON "meta_pixels" USING btree ("container_id","pixel_id");
--> statement-breakpoint
CREATE TABLE "meta_event_deliveries" (
	"meta_pixel_id" text NOT NULL REFERENCES "meta_pixels"("id") ON DELETE CASCADE,
	"event_id" text NOT NULL,
	"event_name" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"http_status" integer,
	"error" jsonb,
	"first_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meta_event_deliveries_pkey" PRIMARY KEY("meta_pixel_id","event_id")
);
--> statement-breakpoint
CREATE INDEX "meta_event_deliveries_recent_idx" ON "meta_event_deliveries" USING btree ("meta_pixel_id","last_attempt_at");
--> statement-breakpoint
CREATE INDEX "meta_event_deliveries_age_idx" ON "meta_event_deliveries" USING btree ("last_attempt_at");
