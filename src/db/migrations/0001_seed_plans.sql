-- Default plans. Limits live in features JSON and can be edited per plan or overridden per tenant.
INSERT INTO "plans" ("id", "name", "features") VALUES
  ('free', 'Free', '{"max_containers": 1, "max_monitors": 3, "monitor_min_interval_seconds": 300, "tracking_checker_api_hourly": 60, "can_own_clients": false}'),
  ('pro', 'Pro', '{"max_containers": 5, "max_monitors": 20, "monitor_min_interval_seconds": 60, "tracking_checker_api_hourly": 60, "can_own_clients": false}'),
  ('business', 'Business', '{"max_containers": 20, "max_monitors": 100, "monitor_min_interval_seconds": 30, "tracking_checker_api_hourly": 60, "can_own_clients": false}'),
  ('agency', 'Agency', '{"max_containers": 100, "max_monitors": 500, "monitor_min_interval_seconds": 30, "tracking_checker_api_hourly": 300, "can_own_clients": true}'),
  ('partner', 'Partner', '{"max_containers": 500, "max_monitors": 2000, "monitor_min_interval_seconds": 30, "tracking_checker_api_hourly": 1000, "can_own_clients": true}');
