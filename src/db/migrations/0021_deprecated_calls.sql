CREATE TABLE "deprecated_calls" (
	"api_key_id" text NOT NULL,
	"day" text NOT NULL,
	"operation_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"sunset" text NOT NULL,
	"changelog" text NOT NULL,
	"calls" integer NOT NULL,
	"last_called_at" timestamp with time zone NOT NULL,
	CONSTRAINT "deprecated_calls_pkey" PRIMARY KEY("api_key_id","day","operation_id")
);--> statement-breakpoint
CREATE INDEX "deprecated_calls_day_idx" ON "deprecated_calls" USING btree ("day");
