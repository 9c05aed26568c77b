-- A pending email subscription's confirmation mails: when the last went out (a repeat within the cool-down re-uses
-- its link), and how many went out since the start of the current day-long window (capped per address).
ALTER TABLE "status_subscriptions" ADD COLUMN "confirmation_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "status_subscriptions" ADD COLUMN "confirmations_sent" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "status_subscriptions" ADD COLUMN "confirmations_since" timestamp with time zone;--> statement-breakpoint
-- Failed two-factor codes of an account since the start of the current window, whatever the IP or instance.
ALTER TABLE "users" ADD COLUMN "failed_codes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "failed_codes_since" timestamp with time zone;
