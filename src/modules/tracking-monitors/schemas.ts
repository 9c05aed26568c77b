import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, NullableTimestamp, optionalFields, patchFields, StringEnum, Timestamp } from '../../http/schemas.js';

export const TRACKING_MONITOR_STATUSES = ['pending', 'passing', 'changed', 'failing', 'paused'] as const;
export const TRACKING_RUN_RESULTS = ['queued', 'running', 'baseline', 'matched', 'changed', 'failed'] as const;
export const TRACKING_INCIDENT_STATUSES = ['open', 'resolved'] as const;
export const TRACKING_INCIDENT_RESOLUTIONS = ['run_matched', 'baseline_accepted'] as const;
export const SEVERITIES = ['critical', 'warning'] as const;

/** What a run is compared with its baseline on; each rule can be switched off or given another severity. */
export const TRACKING_RULES = [
  'tracker_removed',
  'tracker_added',
  'unlisted_tracker',
  'ids_changed',
  'fires_before_consent',
  'consent_changed',
  'server_side_lost',
  'container_missing',
  'loss_increased',
] as const;
export type TrackingRule = (typeof TRACKING_RULES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type RuleSettings = Record<TrackingRule, { enabled: boolean; severity: Severity }>;

export const DEFAULT_RULES: RuleSettings = {
  tracker_removed: { enabled: true, severity: 'critical' },
  tracker_added: { enabled: true, severity: 'warning' },
  unlisted_tracker: { enabled: true, severity: 'warning' },
  ids_changed: { enabled: true, severity: 'critical' },
  fires_before_consent: { enabled: true, severity: 'critical' },
  consent_changed: { enabled: true, severity: 'critical' },
  server_side_lost: { enabled: true, severity: 'critical' },
  container_missing: { enabled: true, severity: 'critical' },
  loss_increased: { enabled: true, severity: 'warning' },
};

const RULE_DESCRIPTIONS: Record<TrackingRule, string> = {
  tracker_removed: 'A tracker of the baseline no longer loads on a page.',
  tracker_added: 'A known tracker loads that the baseline did not have.',
  unlisted_tracker: 'A tracker appears that only third-party-web names (not in our signatures).',
  ids_changed: 'A tracker loads with other ids (a measurement id, pixel id or container id added or gone).',
  fires_before_consent: 'A tracker that waited for consent in the baseline now sends requests before it.',
  consent_changed: 'The consent platform or Google Consent Mode (presence, version, mode) changed or is gone.',
  server_side_lost: 'A server-side endpoint of the baseline is no longer sent to, or its requests fail.',
  container_missing: "The linked container's hostname is no longer used by the page (snippet or endpoint gone).",
  loss_increased: 'The estimated share of lost conversions rose by more than `loss_threshold_pct` points.',
};

export const TrackingMonitorIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('trackingMonitor'), description: 'Tracking monitor id (`tmo_…`).' }),
});
export const TrackingRunParams = Type.Object({
  id: TrackingMonitorIdParams.properties.id,
  run_id: Type.String({ pattern: idPattern('trackingRun'), description: 'Run id (`trn_…`).' }),
});

const Rule = Type.Object(
  { enabled: Type.Boolean(), severity: StringEnum(SEVERITIES) },
  { additionalProperties: false },
);
const RuleInput = Type.Object(
  { enabled: Type.Optional(Type.Boolean()), severity: Type.Optional(StringEnum(SEVERITIES)) },
  { additionalProperties: false },
);
const rulesOf = <T extends typeof Rule | typeof RuleInput>(rule: T, optional: boolean) =>
  Object.fromEntries(
    TRACKING_RULES.map((key) => {
      const described = { ...rule, description: RULE_DESCRIPTIONS[key] } as T;
      return [key, optional ? Type.Optional(described) : described];
    }),
  ) as Record<TrackingRule, T>;

const PageUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'An http(s) URL of a page to scan.' });

const settings = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  pages: Type.Array(PageUrl, {
    minItems: 1,
    maxItems: 20,
    uniqueItems: true,
    description:
      'The pages each run scans: the start page first. At most the plan allows (`features.tracking_monitor_max_pages`), counting the followed links.',
  }),
  follow_links: Type.Integer({
    minimum: 0,
    maximum: 4,
    default: 0,
    description: 'Internal pages linked from the start page to scan as well, as a multi-page scan does (0–4).',
  }),
  interval_seconds: Type.Integer({
    minimum: 10,
    maximum: 86_400,
    description:
      'Seconds between runs, hourly to daily; at least the plan minimum (`features.tracking_monitor_min_interval_seconds`).',
  }),
  consent_check: Type.Boolean({
    default: true,
    description: 'Also load each page after "reject all" to see what fires without consent.',
  }),
  loss_threshold_pct: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 10,
    description: 'Rule `loss_increased`: the rise of the loss estimate, in percentage points, that counts.',
  }),
  container_id: Nullable(Type.String({ pattern: idPattern('container') }), {
    default: null,
    description:
      'One of your containers this site uses: rule `container_missing` checks that every page still uses its hostname (the snippet and the endpoint).',
  }),
  notification_channel_ids: Type.Array(Type.String({ pattern: idPattern('notificationChannel') }), {
    maxItems: 20,
    uniqueItems: true,
    default: [],
    description: "The tenant's channels told when this monitor's incidents open and resolve.",
  }),
};

export const TrackingMonitor = Type.Object(
  {
    id: Type.String({ description: 'Tracking monitor id (`tmo_…`).' }),
    ...settings,
    rules: Type.Object(rulesOf(Rule, false), { additionalProperties: false }),
    status: StringEnum(TRACKING_MONITOR_STATUSES, {
      description:
        'pending until the first run ends; passing when the last run matched the baseline; changed while an incident is open; failing when the last run could not load the pages; paused.',
    }),
    baseline_run_id: Nullable(Type.String(), {
      description: 'The run every run is compared with: the first good run, or one you accepted.',
    }),
    open_incident_id: Nullable(Type.String(), { description: 'The incident open for this monitor, if any.' }),
    last_run_at: NullableTimestamp('When the last run ended.'),
    next_run_at: NullableTimestamp('When the next run is due (null while paused).'),
    created_at: Timestamp('When the monitor was created.'),
    updated_at: Timestamp('When the monitor was last changed.'),
  },
  {
    $id: 'TrackingMonitor',
    additionalProperties: false,
    description: "A tracking monitor: scheduled scans of a site's key pages, compared with a baseline.",
  },
);

const RulesInput = Type.Object(rulesOf(RuleInput, true), {
  additionalProperties: false,
  description: 'Rules to change; the others keep their setting (all on by default).',
});

export const CreateTrackingMonitorBody = Type.Object(
  {
    ...optionalFields(settings),
    name: settings.name,
    pages: settings.pages,
    rules: Type.Optional(RulesInput),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Shop tracking',
        pages: ['https://shop.example.com/', 'https://shop.example.com/checkout'],
        interval_seconds: 3600,
        container_id: 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4',
        rules: { tracker_added: { enabled: false } },
      },
    ],
  },
);
export const UpdateTrackingMonitorBody = Type.Object(
  { ...patchFields(settings), rules: Type.Optional(RulesInput) },
  { additionalProperties: false, examples: [{ interval_seconds: 86_400, loss_threshold_pct: 5 }] },
);

const Evidence = Type.Object(
  { kind: Type.String(), detail: Type.String(), url: Type.Optional(Type.String()) },
  { additionalProperties: false, description: 'What the scan saw: a request, a script, a cookie.' },
);

export const Change = Type.Object(
  {
    rule: StringEnum(TRACKING_RULES),
    severity: StringEnum(SEVERITIES),
    page: Type.String({ description: 'The page the change is on.' }),
    tracker: Nullable(Type.String(), { description: 'The tracker key, when the change is about one.' }),
    message: Type.String({ description: 'What changed, in plain words.' }),
    before: Type.Unknown({ description: 'The value in the baseline.' }),
    after: Type.Unknown({ description: 'The value in this run.' }),
    evidence: Type.Array(Evidence, { description: 'What the scan saw (in this run, or in the baseline for a loss).' }),
  },
  { $id: 'TrackingChange', additionalProperties: false, description: 'One difference from the baseline.' },
);

const PageTracker = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    ids: Type.Array(Type.String()),
    fires_before_consent: Nullable(Type.Boolean()),
    server_side: Type.Boolean(),
    unlisted: Type.Boolean({ description: 'Named only through third-party-web.' }),
    evidence: Type.Array(Evidence),
    blocked: Type.Array(Type.String(), { description: 'Requests of the tracker that failed.' }),
  },
  { additionalProperties: false },
);

export const PageSnapshot = Type.Object(
  {
    url: Type.String(),
    final_url: Nullable(Type.String()),
    error: Nullable(Type.String({ description: 'Why the page could not be scanned; the run failed then.' })),
    trackers: Type.Array(PageTracker, { description: 'Trackers that load (held for consent included).' }),
    cmp: Nullable(Type.String({ description: 'The consent platform, or null.' })),
    consent_mode: Type.Object(
      { detected: Type.Boolean(), version: Nullable(Type.String()), mode: Nullable(Type.String()) },
      { additionalProperties: false },
    ),
    server_side_endpoints: Type.Array(Type.String()),
    loss_pct: Nullable(Type.Number()),
    container_seen: Nullable(Type.Boolean({ description: "Whether the linked container's hostname is used." })),
  },
  { $id: 'TrackingPageSnapshot', additionalProperties: false, description: 'What one run found on one page.' },
);

export const TrackingRun = Type.Object(
  {
    id: Type.String({ description: 'Run id (`trn_…`).' }),
    monitor_id: Type.String(),
    result: StringEnum(TRACKING_RUN_RESULTS, {
      description:
        'queued, running; baseline (the first good run, now the baseline); matched (no difference); changed (see `changes`); failed (a page could not be scanned: nothing is compared).',
    }),
    trigger: StringEnum(['schedule', 'manual'] as const),
    due_at: Timestamp('When the run was due.'),
    started_at: NullableTimestamp('When the scan started.'),
    finished_at: NullableTimestamp('When the run ended.'),
    error: Nullable(Type.String(), { description: 'Why a failed run failed.' }),
    changes: Type.Array(Change, { description: 'Differences from the baseline of the time.' }),
    pages: Type.Array(PageSnapshot, { description: 'What each page showed.' }),
  },
  {
    $id: 'TrackingRun',
    additionalProperties: false,
    description: 'One scheduled or manual run of a tracking monitor.',
  },
);

export const TrackingIncident = Type.Object(
  {
    id: Type.String({ description: 'Incident id (`tin_…`).' }),
    monitor_id: Type.String(),
    status: StringEnum(TRACKING_INCIDENT_STATUSES),
    severity: StringEnum(SEVERITIES, { description: 'The highest severity among its changes.' }),
    opened_run_id: Type.String({ description: 'The run that found the change.' }),
    last_run_id: Type.String({ description: 'The latest run that still showed a change.' }),
    changes: Type.Array(Change, { description: "The latest run's differences from the baseline." }),
    resolution: Nullable(StringEnum(TRACKING_INCIDENT_RESOLUTIONS), {
      description: 'run_matched: a later run matched the baseline; baseline_accepted: a new baseline was accepted.',
    }),
    opened_at: Timestamp('When it opened.'),
    resolved_at: NullableTimestamp('When it resolved.'),
  },
  { $id: 'TrackingIncident', additionalProperties: false, description: 'A tracking regression.' },
);

export const AcceptBaselineBody = Type.Object(
  {
    run_id: Type.Optional(
      Type.String({
        pattern: idPattern('trackingRun'),
        description: 'The run to accept; default the latest run that was not failed.',
      }),
    ),
  },
  { additionalProperties: false },
);

export type TrackingMonitorDto = Static<typeof TrackingMonitor>;
export type CreateTrackingMonitorInput = Static<typeof CreateTrackingMonitorBody>;
export type UpdateTrackingMonitorInput = Static<typeof UpdateTrackingMonitorBody>;
export type ChangeDto = Static<typeof Change>;
export type PageSnapshotDto = Static<typeof PageSnapshot>;
export type TrackingRunDto = Static<typeof TrackingRun>;
export type TrackingIncidentDto = Static<typeof TrackingIncident>;
