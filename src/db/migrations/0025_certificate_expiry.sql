-- When a certificate counts as near expiry (renewal failing for a while) and when that was alerted, so that each
-- certificate is alerted once whichever instance runs the certificate loop.
ALTER TABLE "domain_certificates" ADD COLUMN "expiry_warning_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "domain_certificates" ADD COLUMN "expiry_alerted_at" timestamp with time zone;--> statement-breakpoint
UPDATE "domain_certificates"
	SET "expiry_warning_at" = "not_after" - least(interval '14 days', ("not_after" - "not_before") / 6)
	WHERE "not_after" IS NOT NULL AND "not_before" IS NOT NULL;
