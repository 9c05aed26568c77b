-- ACME Renewal Information (RFC 9773): where a certificate's renewal time came from (the CA's suggested window or
-- our own rule), the CA's explanation of its window, and when to ask the CA for the window again. Certificates issued
-- before were scheduled by our own rule; those being served are asked about at once, so a CA that offers ARI is heard.
ALTER TABLE "domain_certificates" ADD COLUMN "renewal_source" text;--> statement-breakpoint
ALTER TABLE "domain_certificates" ADD COLUMN "renewal_explanation_url" text;--> statement-breakpoint
ALTER TABLE "domain_certificates" ADD COLUMN "renewal_info_check_at" timestamp with time zone;--> statement-breakpoint
UPDATE "domain_certificates" SET "renewal_source" = 'local' WHERE "certificate_pem" IS NOT NULL;--> statement-breakpoint
UPDATE "domain_certificates" SET "renewal_info_check_at" = now() WHERE "status" = 'issued' AND "not_after" > now();--> statement-breakpoint
CREATE INDEX "domain_certificates_renewal_info_idx" ON "domain_certificates" ("renewal_info_check_at")
	WHERE "renewal_info_check_at" IS NOT NULL;
