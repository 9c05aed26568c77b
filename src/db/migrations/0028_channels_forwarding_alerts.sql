-- A channel told about every notification type when container.forwarding_degraded came keeps being told about
-- everything: the new type is added to channels that subscribe to all five earlier ones.
UPDATE "notification_channels"
	SET "event_types" = "event_types" || '["container.forwarding_degraded"]'::jsonb
	WHERE "event_types" @> '["incident.opened", "incident.acknowledged", "incident.resolved", "certificate.failed", "container.failed"]'::jsonb
		AND NOT "event_types" @> '["container.forwarding_degraded"]'::jsonb;
