CREATE TABLE "domain_certificates" (
	"domain_id" text PRIMARY KEY NOT NULL REFERENCES "domains"("id"),
	"hostname" text NOT NULL,
	"status" text NOT NULL,
	"issuer" text,
	"not_before" timestamp with time zone,
	"not_after" timestamp with time zone,
	"certificate_pem" text,
	"private_key_sealed" text,
	"last_error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "domain_certificates_due_idx" ON "domain_certificates" USING btree ("next_attempt_at");
--> statement-breakpoint
CREATE TABLE "acme_challenges" (
	"token" text PRIMARY KEY NOT NULL,
	"key_authorization" text NOT NULL,
	"hostname" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "acme_accounts" (
	"directory_url" text PRIMARY KEY NOT NULL,
	"account_key_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
