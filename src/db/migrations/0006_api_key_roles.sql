ALTER TABLE "api_keys" ADD COLUMN "role" text DEFAULT 'admin' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_role_check" CHECK ("api_keys"."role" in ('owner', 'admin', 'member'));
